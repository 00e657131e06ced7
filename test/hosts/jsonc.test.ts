import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blankJsonc, isJsoncOnly } from '../../src/hosts/jsonc';
import { spliceJsonc } from '../../src/hosts/jsonc-splice';

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

// The comment after the last member stays on that member's line: it is the
// user's note about their own entry, not about ours (it used to move below ours).
test('adding a member two levels down keeps every comment where it was and the layout around it', () => {
  const before = parse(VSCODE);
  const after = { ...before, servers: { ...(before.servers as object), mine: { command: 'node', args: ['a'] } } };
  const out = spliceJsonc(VSCODE, before, after)!;
  assert.equal(out,
    '{\n  // my servers\n  "servers": {\n    "other": { "command": "srv" }, // keep me\n    "mine": {\n      "command": "node",\n      "args": [\n        "a"\n      ]\n    }\n  },\n  /* inputs */ "inputs": []\n}\n');
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

// Only the value that changed is written, so a one-line object stays on one line.
test('a changed value is rewritten in place and nothing around it moves; comments elsewhere stay', () => {
  const text = '{\n  "servers": {\n    // ours\n    "mine": { "command": "old" },\n    "other": 2 // theirs\n  }\n}';
  const out = spliceJsonc(text, parse(text), { servers: { mine: { command: 'new' }, other: 2 } })!;
  assert.equal(out, '{\n  "servers": {\n    // ours\n    "mine": { "command": "new" },\n    "other": 2 // theirs\n  }\n}');
});

// A comment after a removed member goes with it (it used to stay behind on the member before).
test('removing members (first, middle, last, all) takes their own comments and leaves the rest byte for byte', () => {
  const text = '{\n  "a": 1, // a\n  "b": 2, // b\n  "c": 3, // c\n  "d": 4 // d\n}\n';
  const all = parse(text);
  const without = (...keys: string[]): Record<string, unknown> => Object.fromEntries(Object.entries(all).filter(([k]) => !keys.includes(k)));
  assert.equal(spliceJsonc(text, all, without('a')), '{\n  "b": 2, // b\n  "c": 3, // c\n  "d": 4 // d\n}\n');
  assert.equal(spliceJsonc(text, all, without('b', 'c')), '{\n  "a": 1, // a\n  "d": 4 // d\n}\n');
  assert.equal(spliceJsonc(text, all, without('d')), '{\n  "a": 1, // a\n  "b": 2, // b\n  "c": 3 // c\n}\n');
  assert.equal(spliceJsonc(text, all, without('c', 'd')), '{\n  "a": 1, // a\n  "b": 2 // b\n}\n');
  assert.equal(spliceJsonc(text, all, {}), '{}\n');
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

/** Adds `value` at `path` (creating objects on the way) in a copy of `doc`. */
function withAdded(doc: Record<string, unknown>, path: string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(doc);
  let at = copy;
  for (const key of path.slice(0, -1)) at = (at[key] ??= {}) as Record<string, unknown>;
  at[path[path.length - 1]] = value;
  return copy;
}

const ENTRY = { type: 'stdio', command: 'node', args: ['/p/opencomms.js', '--project', '/p'], env: { K: 'v' } };

function roundTrip(text: string, path: string[]): string {
  const before = parse(text);
  const after = withAdded(before, path, ENTRY);
  const added = spliceJsonc(text, before, after);
  assert.ok(added !== undefined, 'the addition was refused');
  assert.deepEqual(parse(added), after);
  assert.equal(spliceJsonc(added, after, before), text, 'taking the addition out again gives the original bytes');
  return added;
}

test('a 4-space file gets 4-space additions and keeps its one-line arrays, then comes back byte for byte', () => {
  const text = '{\n    "mcpServers": {\n        "other": {\n            "command": "x",\n            "args": ["a", "b"]\n        }\n    }\n}\n';
  const added = roundTrip(text, ['mcpServers', 'opencomms']);
  assert.ok(added.startsWith(text.slice(0, text.indexOf('        }\n')) + '        },\n        "opencomms": {\n            "type": "stdio",'), added);
  assert.match(added, /^ {12}"args": \["\/p\/opencomms\.js", "--project", "\/p"\],$/m);
  assert.ok(added.split('\n').every((line) => /^( {4})*(?! )/.test(line)), `a line off the 4-space grid:\n${added}`);
});

test('a tab-indented file gets tab-indented additions only, then comes back byte for byte', () => {
  const text = '{\n\t"servers": {\n\t\t"other": {\n\t\t\t"command": "x"\n\t\t}\n\t}\n}\n';
  const added = roundTrip(text, ['servers', 'opencomms']);
  assert.ok(added.split('\n').every((line) => /^\t*(?![ \t])/.test(line)), `spaces in the indentation:\n${added}`);
});

test('a CRLF file keeps CRLF on every line it gets, then comes back byte for byte', () => {
  const text = '{\r\n  "mcpServers": {\r\n    "other": { "command": "x" }\r\n  },\r\n  "zeta": 1\r\n}\r\n';
  const added = roundTrip(text, ['mcpServers', 'opencomms']);
  assert.equal(added.replace(/\r\n/g, '').includes('\n'), false, 'a bare LF');
  roundTrip(text, ['newContainer', 'opencomms']);
});

test('a one-line file stays on one line in its own spacing, then comes back byte for byte', () => {
  const text = '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]}]}}';
  const before = parse(text);
  const ours = { hooks: [{ type: 'command', command: 'ours', timeout: 15 }] };
  const after = structuredClone(before) as { hooks: Record<string, unknown[]> };
  after.hooks.Stop.push(ours);
  after.hooks.SessionStart = [ours];
  const added = spliceJsonc(text, before, after)!;
  assert.equal(added,
    '{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"mine"}]},{"hooks":[{"type":"command","command":"ours","timeout":15}]}],' +
    '"SessionStart":[{"hooks":[{"type":"command","command":"ours","timeout":15}]}]}}');
  assert.equal(spliceJsonc(added, after, before), text);
});

test('a comment after the last entry stays on its line, and a file that ends lists with commas gets ours with one too', () => {
  const text = '{\n  "mcpServers": {\n    "other": { "command": "x" }, // mine\n  },\n}\n';
  const added = roundTrip(text, ['mcpServers', 'opencomms']);
  assert.match(added, /"other": \{ "command": "x" \}, \/\/ mine\n {4}"opencomms": \{/);
  assert.match(added, /\n {4}\},\n {2}\},\n\}\n$/);
});

test('a closing bracket on the last entry\'s line, or on a commented line, still comes back byte for byte', () => {
  roundTrip('{\n  "servers": {\n    "other": 1 }\n}\n', ['servers', 'opencomms']);
  roundTrip('{ "servers": { "other": 1 } }\n', ['servers', 'opencomms']);
  roundTrip('{\n  "servers": {} // none yet\n}\n', ['servers', 'opencomms']);
  roundTrip('{\n  /* a\n  block */ "x": 1 /* spans\n lines */\n}\n', ['servers', 'opencomms']);
});

test('an element appended to a list, and one taken out of the middle of a list, touch nothing else', () => {
  const text = '{\n  "hooks": {\n    "Stop": [\n      { "hooks": [{ "command": "a" }] }, // a\n      { "hooks": [{ "command": "b" }] }\n    ]\n  }\n}\n';
  const before = parse(text) as { hooks: { Stop: unknown[] } };
  const appended = structuredClone(before);
  appended.hooks.Stop.push({ hooks: [{ command: 'c' }] });
  const added = spliceJsonc(text, before, appended)!;
  assert.equal(added, text.replace('"b" }] }\n', '"b" }] },\n      {\n        "hooks": [\n          {\n            "command": "c"\n          }\n        ]\n      }\n'));
  assert.equal(spliceJsonc(added, appended, before), text);
  const middle = structuredClone(before);
  middle.hooks.Stop.splice(0, 1);
  assert.equal(spliceJsonc(text, before, middle), text.replace('{ "hooks": [{ "command": "a" }] }, // a\n      ', ''));
});

// Seeded, so a failure repeats: documents in random layouts (indent unit, CRLF,
// spacing, one-line containers, comments, trailing commas), one member or
// element added or taken out anywhere, never emptying or filling a container.
test('in any layout, adding or taking out one item anywhere and then undoing it gives the original bytes', () => {
  let seed = 7;
  const pick = (n: number): number => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  type Style = { unit: string; nl: string; colon: string; comma: string; isInline: boolean; hasComments: boolean; hasTrailing: boolean };
  const value = (depth: number): unknown => {
    const kind = pick(depth > 2 ? 3 : 5);
    if (kind === 0) return pick(100);
    if (kind === 1) return 'a"b\\c'.slice(pick(4));
    if (kind === 2) return pick(2) === 0;
    if (kind === 3) return Object.fromEntries(Array.from({ length: pick(4) }, () => [`k${pick(6)}`, value(depth + 1)]));
    return Array.from({ length: pick(4) }, () => value(depth + 1));
  };
  const format = (v: unknown, style: Style, indent: string): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    const entries: [string | null, unknown][] = Array.isArray(v) ? v.map((x) => [null, x]) : Object.entries(v);
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return open + close;
    const item = ([k, x]: [string | null, unknown], at: string): string => (k === null ? '' : `${JSON.stringify(k)}${style.colon}`) + format(x, style, at);
    if (style.isInline || pick(4) === 0) return open + entries.map((e) => item(e, indent)).join(style.comma) + (style.hasTrailing && pick(2) ? ',' : '') + close;
    const inner = indent + style.unit;
    const lines = entries.map((e, i) => inner + item(e, inner) + (i < entries.length - 1 || style.hasTrailing ? ',' : '') + (style.hasComments && pick(3) === 0 ? ` // c${pick(9)}` : ''));
    return open + style.nl + lines.join(style.nl) + style.nl + indent + close;
  };
  let checked = 0;
  for (let run = 0; run < 600; run++) {
    const style: Style = {
      unit: ['  ', '    ', '\t'][pick(3)], nl: pick(3) ? '\n' : '\r\n', colon: pick(3) ? ': ' : ':', comma: pick(2) ? ', ' : ',',
      isInline: pick(8) === 0, hasComments: pick(2) === 0, hasTrailing: pick(4) === 0,
    };
    const doc = Object.fromEntries(Array.from({ length: 1 + pick(4) }, (_, i) => [`r${i}`, value(0)]));
    const text = format(doc, style, '') + style.nl;
    const before = parse(text);
    const after = structuredClone(before);
    const containers: object[] = [];
    const walk = (v: unknown): void => {
      if (v === null || typeof v !== 'object') return;
      containers.push(v);
      for (const x of Object.values(v)) walk(x);
    };
    walk(after);
    const target = containers[pick(containers.length)] as Record<string, unknown> | unknown[];
    const size = Object.keys(target).length;
    const isAdding = pick(2) === 0;
    if (size === 0 || (!isAdding && size === 1)) continue;
    if (Array.isArray(target)) {
      if (isAdding) target.push(value(2));
      else target.splice(pick(size), 1);
    } else if (isAdding) target[`new${pick(1000)}x`] = value(2);
    else delete target[Object.keys(target)[pick(size)]];
    const changed = spliceJsonc(text, before, after);
    assert.ok(changed !== undefined, `refused: ${JSON.stringify(text)}`);
    assert.deepEqual(parse(changed), after);
    assert.equal(spliceJsonc(changed, after, before), text, `not undone: ${JSON.stringify(text)} -> ${JSON.stringify(changed)}`);
    checked++;
  }
  assert.ok(checked > 300, `only ${checked} cases checked`);
});
