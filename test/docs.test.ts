// The docs name what the code does: the reason codes PROTOCOL lists, and the
// README sections that messages of the program point people to.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { REASONS } from '../src/engine/reasons';
import { composeBell } from '../src/delivery/doorbell';
import type { Channel, Envelope } from '../src/engine/types';

const ROOT = join(__dirname, '..', '..');
const read = (name: string): string => readFileSync(join(ROOT, name), 'utf8');

test('PROTOCOL 3.4 lists exactly the reason codes the code defines', () => {
  const protocol = read('PROTOCOL.md');
  const section = protocol.slice(protocol.indexOf('### 3.4 Reason codes'), protocol.indexOf('Some refusals carry extra fields'));
  const codes = new Set([...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
  assert.deepEqual([...codes].sort(), [...REASONS].sort());
});

test('every README section the program names in its messages exists', () => {
  const headings = new Set([...read('README.md').matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1]!.trim()));
  const named: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) for (const m of readFileSync(path, 'utf8').matchAll(/README (?:section )?"([^"]+)"/g)) named.push(m[1]!);
    }
  };
  walk(join(ROOT, 'src'));
  assert.ok(named.length > 0, 'the server\'s start-up hint names a README section');
  for (const section of named) assert.ok(headings.has(section), `README has no section "${section}"`);
});

test('the mail notices quoted in README and PROTOCOL are the ones the code composes, "it" for one message', () => {
  const readme = read('README.md');
  const protocol = read('PROTOCOL.md');
  const channel = { id: 'ch_1', name: 'review' } as unknown as Channel;
  const mail = (id: string): Envelope => ({ message_id: id, channel_id: 'ch_1', sender_role: 'reviewer', sender_session_id: 'sess_cf8fa904ea75129fdf824da3' }) as unknown as Envelope;
  const channels = new Map([['ch_1', channel]]);
  const one = composeBell([mail('m1')], channels, 1).content;
  const two = composeBell([mail('m1'), mail('m2')], channels, 1).content;
  assert.match(one, /read it;/);
  assert.match(two, /read them;/);
  assert.ok(readme.includes(one), `README quotes the one-message bell as the code writes it: ${one}`);
  assert.ok(readme.includes(two), `README quotes the two-message bell as the code writes it: ${two}`);
  assert.ok(protocol.includes(two), 'PROTOCOL quotes the two-message bell as the code writes it');
  for (const text of [readme, protocol]) {
    for (const line of text.split('\n')) {
      if (/\b1 OpenComms message waits|\b1 new message waiting/.test(line)) assert.doesNotMatch(line, /read them/, line);
    }
  }
});
