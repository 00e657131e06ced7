// The RESP codec on byte-level fixtures: every reply split at every byte
// boundary, fed one byte at a time, and a seeded fuzz of random reply trees
// and random garbage.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  encodeCommand, MAX_DEPTH, MAX_LINE_BYTES, RespError, RespParser, RespProtocolError, RespPush, type RespValue,
} from '../../../src/store/redis/resp';
import { Random } from '../../helpers/fuzz';

const b = (text: string): Buffer => Buffer.from(text, 'utf8');

// Replies as Redis sends them, and what they parse to.
const FIXTURES: { name: string; wire: string; value: RespValue }[] = [
  { name: 'simple string', wire: '+OK\r\n', value: 'OK' },
  { name: 'empty simple string', wire: '+\r\n', value: '' },
  { name: 'error', wire: '-WRONGPASS invalid username-password pair or user is disabled.\r\n', value: new RespError('WRONGPASS invalid username-password pair or user is disabled.') },
  { name: 'integer', wire: ':1000\r\n', value: 1000 },
  { name: 'negative integer', wire: ':-42\r\n', value: -42 },
  { name: 'integer past 2^53', wire: ':9223372036854775807\r\n', value: 9223372036854775807n },
  { name: 'bulk string', wire: '$5\r\nhello\r\n', value: b('hello') },
  { name: 'bulk string holding CRLF', wire: '$4\r\n\r\n\r\n\r\n', value: b('\r\n\r\n') },
  { name: 'empty bulk string', wire: '$0\r\n\r\n', value: b('') },
  { name: 'multi-byte UTF-8 bulk', wire: '$7\r\nh\u00e9\u20ac!\r\n', value: b('h\u00e9\u20ac!') },
  { name: 'null bulk', wire: '$-1\r\n', value: null },
  { name: 'null array', wire: '*-1\r\n', value: null },
  { name: 'empty array', wire: '*0\r\n', value: [] },
  { name: 'flat array', wire: '*3\r\n$3\r\nfoo\r\n:7\r\n$-1\r\n', value: [b('foo'), 7, null] },
  {
    name: 'nested arrays with an error inside',
    wire: '*2\r\n*3\r\n:1\r\n*0\r\n*1\r\n+deep\r\n-ERR inner\r\n',
    value: [[1, [], ['deep']], new RespError('ERR inner')],
  },
  {
    name: 'EXEC reply of a stream read',
    wire: '*1\r\n*1\r\n*2\r\n$15\r\n1700000000000-0\r\n*2\r\n$1\r\nr\r\n$2\r\n{}\r\n',
    value: [[[b('1700000000000-0'), [b('r'), b('{}')]]]],
  },
  { name: 'RESP3 null', wire: '_\r\n', value: null },
  { name: 'RESP3 booleans', wire: '*2\r\n#t\r\n#f\r\n', value: [true, false] },
  { name: 'RESP3 double', wire: ',3.25\r\n', value: 3.25 },
  { name: 'RESP3 infinities', wire: '*2\r\n,inf\r\n,-inf\r\n', value: [Infinity, -Infinity] },
  { name: 'RESP3 big number', wire: '(3492890328409238509324850943850943825024385\r\n', value: 3492890328409238509324850943850943825024385n },
  { name: 'RESP3 map, flattened', wire: '%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n', value: ['a', 1, 'b', 2] },
  { name: 'RESP3 set', wire: '~2\r\n+x\r\n+y\r\n', value: ['x', 'y'] },
  { name: 'RESP3 verbatim string', wire: '=8\r\ntxt:abcd\r\n', value: b('abcd') },
  { name: 'RESP3 blob error', wire: '!9\r\nNOPERM no\r\n', value: new RespError('NOPERM no') },
  { name: 'RESP3 push', wire: '>3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$1\r\nx\r\n', value: new RespPush([b('message'), b('ch'), b('x')]) },
];

function parseWhole(wire: Buffer, parser = new RespParser()): RespValue[] {
  return parser.push(wire);
}

function parseSplit(wire: Buffer, cuts: number[]): RespValue[] {
  const parser = new RespParser();
  const out: RespValue[] = [];
  let from = 0;
  for (const cut of [...cuts, wire.length]) {
    // A copy per chunk, then the chunk is scribbled over: the parser must not keep views of it.
    const chunk = Buffer.from(wire.subarray(from, cut));
    out.push(...parser.push(chunk));
    chunk.fill(0x58);
    from = cut;
  }
  assert.equal(parser.isMidReply, false);
  return out;
}

test('encodes a command as an array of bulk strings, byte for byte', () => {
  assert.equal(encodeCommand(['SET', 'oc:{p}:state', '{"a":1}']).toString(), '*3\r\n$3\r\nSET\r\n$12\r\noc:{p}:state\r\n$7\r\n{"a":1}\r\n');
  assert.equal(encodeCommand(['XRANGE', 'k', '-', '+', 'COUNT', 10]).toString(), '*6\r\n$6\r\nXRANGE\r\n$1\r\nk\r\n$1\r\n-\r\n$1\r\n+\r\n$5\r\nCOUNT\r\n$2\r\n10\r\n');
  assert.equal(encodeCommand(['ECHO', 'h\u00e9']).toString('latin1'), '*2\r\n$4\r\nECHO\r\n$3\r\nh\u00c3\u00a9\r\n');
  assert.deepEqual(encodeCommand(['SET', Buffer.from([0, 13, 10, 255])]), Buffer.concat([b('*2\r\n$3\r\nSET\r\n$4\r\n'), Buffer.from([0, 13, 10, 255]), b('\r\n')]));
  assert.throws(() => encodeCommand(['INCRBY', 'k', Number.NaN]), TypeError);
});

for (const fixture of FIXTURES) {
  test(`parses ${fixture.name} whole, split at every byte boundary, and byte by byte`, () => {
    const wire = b(fixture.wire);
    assert.deepEqual(parseWhole(wire), [fixture.value]);
    for (let cut = 1; cut < wire.length; cut++) assert.deepEqual(parseSplit(wire, [cut]), [fixture.value], `cut at ${cut}`);
    assert.deepEqual(parseSplit(wire, Array.from({ length: wire.length - 1 }, (_, i) => i + 1)), [fixture.value]);
  });
}

test('parses every fixture back to back in one stream (pipelined replies), at every split', () => {
  const wire = b(FIXTURES.map((f) => f.wire).join(''));
  const expected = FIXTURES.map((f) => f.value);
  assert.deepEqual(parseWhole(wire), expected);
  for (let cut = 1; cut < wire.length; cut += 1) assert.deepEqual(parseSplit(wire, [cut]), expected);
});

test('a bulk string announced over the size guard is refused before any memory is reserved', () => {
  const parser = new RespParser({ maxReplyBytes: 1024 * 1024 });
  assert.throws(() => parser.push(b('$536870912\r\n')), RespProtocolError);
});

test('a reply of exactly the guard passes and one byte more is refused', () => {
  const payload = 'x'.repeat(1000);
  const wire = b(`$1000\r\n${payload}\r\n`);
  assert.deepEqual(new RespParser({ maxReplyBytes: wire.length }).push(wire), [b(payload)]);
  assert.throws(() => new RespParser({ maxReplyBytes: wire.length - 1 }).push(wire), RespProtocolError);
});

test('many small parts adding up past the guard are refused, and each finished reply resets the count', () => {
  const item = '$10\r\n0123456789\r\n';
  const wire = b(`*200\r\n${item.repeat(200)}`);
  assert.throws(() => new RespParser({ maxReplyBytes: 2000 }).push(wire), RespProtocolError);
  const parser = new RespParser({ maxReplyBytes: 100 });
  for (let i = 0; i < 50; i++) assert.equal(parser.push(b(item)).length, 1);
});

test('a huge bulk string under the guard arrives intact in small chunks', () => {
  const size = 8 * 1024 * 1024 + 3;
  const payload = Buffer.alloc(size, 0x61);
  payload[0] = 0x0d;
  payload[size - 1] = 0x0a;
  const wire = Buffer.concat([b(`$${size}\r\n`), payload, b('\r\n')]);
  const parser = new RespParser();
  const out: RespValue[] = [];
  for (let at = 0; at < wire.length; at += 65_536) out.push(...parser.push(wire.subarray(at, at + 65_536)));
  assert.equal(out.length, 1);
  assert.ok(payload.equals(out[0] as Buffer));
});

test('a header line that never ends is refused once it passes the line limit', () => {
  const parser = new RespParser();
  assert.throws(() => {
    for (let i = 0; i <= MAX_LINE_BYTES / 1024; i++) parser.push(b(`+${'y'.repeat(1023)}`));
  }, RespProtocolError);
});

test('nesting deeper than the limit is refused', () => {
  assert.throws(() => new RespParser().push(b('*1\r\n'.repeat(MAX_DEPTH + 1))), RespProtocolError);
  const ok = new RespParser().push(b(`${'*1\r\n'.repeat(MAX_DEPTH)}:1\r\n`));
  assert.equal(ok.length, 1);
});

test('malformed replies are protocol errors, and the parser stays spent after one', () => {
  for (const wire of ['?x\r\n', ':12a\r\n', '$abc\r\n', '$3\r\nabcXY', '+OK\n', '*-2\r\n', '#x\r\n', ',\r\n', '(1.5\r\n', '_x\r\n', '=-1\r\n', '\x15\x03\x03\x00\x02\x02\x46']) {
    const parser = new RespParser();
    assert.throws(() => parser.push(b(wire)), RespProtocolError, JSON.stringify(wire));
    assert.throws(() => parser.push(b('+OK\r\n')), RespProtocolError);
  }
});

test('a TLS record where a reply should start is refused at once, naming TLS', () => {
  assert.throws(() => new RespParser().push(Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02])), /TLS/);
});

test('a reply in progress is reported as such until it completes', () => {
  const parser = new RespParser();
  assert.deepEqual(parser.push(b('*2\r\n:1\r\n')), []);
  assert.equal(parser.isMidReply, true);
  assert.deepEqual(parser.push(b(':2\r\n')), [[1, 2]]);
  assert.equal(parser.isMidReply, false);
});

// ---- seeded fuzz ---------------------------------------------------------

function randomValue(rng: Random, depth: number): { wire: string; value: RespValue } {
  const kind = depth > 3 ? rng.int(0, 5) : rng.int(0, 9);
  switch (kind) {
    case 0: {
      const text = randomText(rng, 20).replace(/[\r\n]/g, ' ');
      return { wire: `+${text}\r\n`, value: text };
    }
    case 1: {
      const text = `ERR ${randomText(rng, 20).replace(/[\r\n]/g, ' ')}`;
      return { wire: `-${text}\r\n`, value: new RespError(text) };
    }
    case 2: {
      const n = rng.int(-1_000_000, 1_000_000);
      return { wire: `:${n}\r\n`, value: n };
    }
    case 3: {
      const text = randomText(rng, rng.chance(0.1) ? 5000 : 40);
      return { wire: `$${Buffer.byteLength(text)}\r\n${text}\r\n`, value: b(text) };
    }
    case 4:
      return rng.chance(0.5) ? { wire: '$-1\r\n', value: null } : { wire: '_\r\n', value: null };
    case 5:
      return rng.chance(0.5) ? { wire: '#t\r\n', value: true } : { wire: '*-1\r\n', value: null };
    default: {
      const count = rng.int(0, 6);
      const items = Array.from({ length: count }, () => randomValue(rng, depth + 1));
      return { wire: `*${count}\r\n${items.map((i) => i.wire).join('')}`, value: items.map((i) => i.value) };
    }
  }
}

function randomText(rng: Random, max: number): string {
  const alphabet = ['a', 'Z', '0', ' ', '\r', '\n', '$', '*', ':', '\u00e9', '\u20ac', '\u{1f600}', '\u0000'];
  let text = '';
  const length = rng.int(0, max);
  for (let i = 0; i < length; i++) text += rng.pick(alphabet);
  return text;
}

test('fuzz: random reply trees, pipelined and cut at random points, parse to what was sent (seeded)', () => {
  const seed = 0x5eed_2024;
  const rng = new Random(seed);
  for (let round = 0; round < 300; round++) {
    const replies = Array.from({ length: rng.int(1, 8) }, () => randomValue(rng, 0));
    const wire = b(replies.map((r) => r.wire).join(''));
    const cuts: number[] = [];
    for (let at = rng.int(1, 40); at < wire.length; at += rng.size(200)) cuts.push(at);
    assert.deepEqual(parseSplit(wire, cuts), replies.map((r) => r.value), `seed ${seed} round ${round}`);
  }
});

test('fuzz: random and mutated bytes give replies or a protocol error, never another exception (seeded)', () => {
  const seed = 0xbad_b17e5;
  const rng = new Random(seed);
  for (let round = 0; round < 2000; round++) {
    const base = b(randomValue(rng, 0).wire);
    const bytes = Buffer.from(base);
    const flips = rng.int(1, 4);
    for (let i = 0; i < flips; i++) bytes[rng.int(0, bytes.length - 1)] = rng.chance(0.5) ? rng.int(0, 255) : rng.pick([13, 10, 0x2a, 0x24, 0x2d, 0x3a]);
    const parser = new RespParser({ maxReplyBytes: 64 * 1024 });
    try {
      for (let at = 0; at < bytes.length;) {
        const step = rng.int(1, 7);
        parser.push(bytes.subarray(at, at + step));
        at += step;
      }
    } catch (err) {
      assert.ok(err instanceof RespProtocolError, `seed ${seed} round ${round}: ${String(err)}`);
    }
  }
});
