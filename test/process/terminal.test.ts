// The terminal facts a person action asks for, from the kernel's own numbers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStatTerminal, readTerminalFacts, ttyDeviceName } from '../../src/process/terminal';

test('a tty_nr names its device: pseudo-terminals past 255, consoles, serial lines and anything else by number', () => {
  assert.equal(ttyDeviceName((136 << 8) | 3), '/dev/pts/3');
  assert.equal(ttyDeviceName((137 << 8) | 4), '/dev/pts/260');
  assert.equal(ttyDeviceName((136 << 8) | (1 << 20)), '/dev/pts/256', 'minor bits above the first eight sit at bit 20');
  assert.equal(ttyDeviceName((4 << 8) | 2), '/dev/tty2');
  assert.equal(ttyDeviceName((4 << 8) | 65), '/dev/ttyS1');
  assert.equal(ttyDeviceName((204 << 8) | 64), '/dev/char/204:64');
});

test('the stat line is read after the last ")", so a command name with spaces and parentheses cannot shift the fields', () => {
  const stat = '4242 (evil) 1 2 3 (x) S 4000 4242 4100 34819 4242 4194304 0 0';
  assert.deepEqual(parseStatTerminal(stat), { pgrp: 4242, session: 4100, ttyNr: 34819, tpgid: 4242 });
  assert.equal(parseStatTerminal('1 (init) S'), undefined);
});

test('on Windows only a console on stdin counts, and is said to be all that was checked', () => {
  assert.deepEqual(readTerminalFacts(false, 'win32'), { tty: undefined, isForeground: false, sessionLeader: undefined, foregroundLeader: undefined, how: 'a console on stdin' });
  assert.equal(readTerminalFacts(true, 'win32').tty, 'console');
});
