// The doorbell's design bound: the least any implementation must do between
// "A was asked to send" and "B printed its bell", with nothing of OpenComms
// in it. Two bare processes share a directory:
//   writer: per stdin line, take an O_EXCL lock with a stamp, read and parse
//           state.json, append the message, write a temp file, fsync it,
//           rename it over state.json, drop the lock, fsync the directory,
//           then answer on stdout;
//   ringer: fs.watch the directory; on a state.json event read and parse it
//           and print one line per new message count.
// These are the steps INTERFACE/PROTOCOL require of a durable save (fsync
// before rename); the bench's floor (a bare watch of a rename) pays none of
// the I/O, so this bound shows how much of the doorbell's ratio is the disk.
//   node bench/lib/bare-doorbell.cjs writer|ringer <dir>
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const [role, dir] = process.argv.slice(2);
const statePath = path.join(dir, 'state.json');

function readState() {
  return JSON.parse(fs.readFileSync(statePath, 'utf8'));
}

function saveDurably(state) {
  const lockPath = path.join(dir, '.state.lock');
  const lock = fs.openSync(lockPath, 'wx');
  try {
    fs.writeSync(lock, JSON.stringify({ pid: process.pid, host: 'bench', t: Date.now() }));
    const next = state(readState());
    const temp = path.join(dir, `.state.${process.pid}.tmp`);
    const out = fs.openSync(temp, 'wx');
    try {
      fs.writeSync(out, JSON.stringify(next));
      fs.fsyncSync(out);
    } finally {
      fs.closeSync(out);
    }
    fs.renameSync(temp, statePath);
  } finally {
    fs.closeSync(lock);
    fs.unlinkSync(lockPath);
  }
  const dirFd = fs.openSync(dir, 'r');
  fs.fsyncSync(dirFd);
  fs.closeSync(dirFd);
}

function writer() {
  let pending = '';
  process.stdin.setEncoding('utf8').on('data', (chunk) => {
    pending += chunk;
    let nl;
    while ((nl = pending.indexOf('\n')) !== -1) {
      const request = JSON.parse(pending.slice(0, nl));
      pending = pending.slice(nl + 1);
      saveDurably((s) => ({ ...s, messages: [...s.messages, request.content] }));
      process.stdout.write(`${JSON.stringify({ id: request.id })}\n`);
    }
  });
}

function ringer() {
  let rung = readState().messages.length;
  fs.watch(dir, (_event, filename) => {
    if (String(filename) !== 'state.json') return;
    let state;
    try {
      state = readState();
    } catch {
      return; // a rename between events; the next event reads it
    }
    if (state.messages.length <= rung) return;
    rung = state.messages.length;
    process.stdout.write(`${JSON.stringify({ bell: rung })}\n`);
  });
  process.stdout.write('{"ready":true}\n');
}

if (role === 'writer') writer();
else if (role === 'ringer') ringer();
else {
  console.error('usage: bare-doorbell.cjs writer|ringer <dir>');
  process.exit(2);
}
