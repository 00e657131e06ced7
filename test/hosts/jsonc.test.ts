import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blankJsonc, isJsoncOnly, spliceJsonc } from '../../src/hosts/jsonc';

const parse = (text: string): Record<string, unknown> => JSON.parse(blankJsonc(text));

test('blanking keeps every offset and newline, and leaves strings that look like comments alone', () => {
  const text = '{\n  // a comment\n  "url": "http://x//y", /* block\n spans */ "q": "say \\"/*\\"",\n  "list": [1, 2,],\n}\n';
  const blanked = blankJsonc(text);
  assert.equal(blanked.length, text.length);
  assert.deepEqual([...blanked].map((c, i) => (c === '\n') === (text[i] === '\n')).every(Boolean), true);
  assert.deepEqual(JSON.parse(blanked), { url: 'http://x//y', q: 'say "/*"', list: [1, 2] });
});

test('a trailing comma is blanked even with a comment between it and the bracket', () => {
  assert.deepEqual(JSON.parse(blankJsonc('{"a": [1, // one\n], "b": 2, /* end */ }')), { a: [1], b: 2 });
});

test('isJsoncOnly tells JSON with comments from plain JSON and from garbage', () => {
  assert.equal(isJsoncOnly('{"a": 1}'), false);
  assert.equal(isJsoncOnly('{"a": 1, // x\n}'), true);
  assert.equal(isJsoncOnly('\uFEFF{"a": 1 /* x */}'), true);
  assert.equal(isJsoncOnly('{"a": '), false);
});

const VSCODE = '{\n  // my servers\n  "servers": {\n    "other": { "command": "srv" } // keep me\n  },\n  /* inputs */ "inputs": []\n}\n';

test('adding a member two levels down keeps every comment and the layout around it', () => {
  const before = parse(VSCODE);
  const after = { ...before, servers: { ...(before.servers as object), mine: { command: 'node', args: ['a'] } } };
  const out = spliceJsonc(VSCODE, before, after)!;
  assert.equal(out,
    '{\n  // my servers\n  "servers": {\n    "other": { "command": "srv" },\n    "mine": {\n      "command": "node",\n      "args": [\n        "a"\n      ]\n    } // keep me\n  },\n  /* inputs */ "inputs": []\n}\n');
  assert.deepEqual(parse(out), after);
});

test('adding to an empty object and to a document without the container', () => {
  const empty = '{\n  "servers": {}, // none yet\n  "x": 1\n}\n';
  const out = spliceJsonc(empty, parse(empty), { servers: { mine: 1 }, x: 1 })!;
  assert.deepEqual(parse(out), { servers: { mine: 1 }, x: 1 });
  assert.match(out, /\/\/ none yet/);
  const bare = '{ // just a comment\n}\n';
  const added = spliceJsonc(bare, {}, { servers: { mine: 1 } })!;
  assert.deepEqual(parse(added), { servers: { mine: 1 } });
  assert.match(added, /\/\/ just a comment/);
});

test('a changed member is rewritten in place; comments elsewhere stay', () => {
  const text = '{\n  "servers": {\n    // ours\n    "mine": { "command": "old" },\n    "other": 2 // theirs\n  }\n}';
  const out = spliceJsonc(text, parse(text), { servers: { mine: { command: 'new' }, other: 2 } })!;
  assert.equal(out, '{\n  "servers": {\n    // ours\n    "mine": {\n      "command": "new"\n    },\n    "other": 2 // theirs\n  }\n}');
});

test('removing members (first, middle, last, all) leaves the rest byte for byte', () => {
  const text = '{\n  "a": 1, // a\n  "b": 2, // b\n  "c": 3, // c\n  "d": 4 // d\n}\n';
  const all = parse(text);
  const without = (...keys: string[]): Record<string, unknown> => Object.fromEntries(Object.entries(all).filter(([k]) => !keys.includes(k)));
  assert.equal(spliceJsonc(text, all, without('a')), '{\n  "b": 2, // b\n  "c": 3, // c\n  "d": 4 // d\n}\n');
  assert.equal(spliceJsonc(text, all, without('b', 'c')), '{\n  "a": 1, // a\n  "d": 4 // d\n}\n');
  assert.equal(spliceJsonc(text, all, without('d')), '{\n  "a": 1, // a\n  "b": 2, // b\n  "c": 3 // d\n}\n');
  assert.equal(spliceJsonc(text, all, without('c', 'd')), '{\n  "a": 1, // a\n  "b": 2 // d\n}\n');
  assert.deepEqual(parse(spliceJsonc(text, all, {})!), {});
});

test('adding then removing a member gives the original text back, CRLF included', () => {
  const text = VSCODE.replace(/\n/g, '\r\n');
  const before = parse(text);
  const after = { ...before, servers: { ...(before.servers as object), mine: { env: { K: 'v' } } } };
  const added = spliceJsonc(text, before, after)!;
  assert.equal(added.replace(/\r\n/g, '').includes('\n'), false);
  assert.equal(spliceJsonc(added, after, before), text);
});

test('a description that does not match the text is refused, never guessed at', () => {
  assert.equal(spliceJsonc('{"a": 1, // x\n}', { b: 1 }, { b: 2 }), undefined);
  assert.equal(spliceJsonc('[1, // x\n]', {}, { a: 1 }), undefined);
});
