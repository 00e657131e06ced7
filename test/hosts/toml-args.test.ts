// doctor --fix points our `args` at this checkout: only the strings that
// change are written anew, each in its own quotes, and each string's line is
// known for the finding.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readOurServer } from '../../src/hosts/toml';
import { locateOurArgs, setOurArgs } from '../../src/hosts/toml-args';

const NEW = ['/b/.opencomms/opencomms.js', '--project', '/b', '--host', 'codex'];

test('an array over several lines, literal strings and comments: the changed strings alone, in their own quotes; each string has its line', () => {
  const text = [
    'model = "o3"',
    '[mcp_servers.opencomms]',
    'command = "node"',
    'args = [',
    "  '/a/.opencomms/opencomms.js', # the server",
    "  '--project', '/a',",
    '  "--host", "codex",',
    '] # ours',
    'startup_timeout_sec = 20',
    '',
  ].join('\n');
  const place = locateOurArgs(text)!;
  const lineOf = (offset: number): number => text.slice(0, offset).split('\n').length;
  assert.deepEqual(place.strings!.map((s) => lineOf(s.start)), [5, 6, 6, 7, 7]);
  const out = setOurArgs(text, NEW)!;
  assert.equal(out, text.replace("'/a/.opencomms/opencomms.js'", "'/b/.opencomms/opencomms.js'").replace("'/a'", "'/b'"));
  assert.deepEqual(readOurServer(out)!.args, NEW);
});

test('a string it cannot follow (a multi-line string) rewrites the args line as install writes it, CRLF kept', () => {
  const text = '[mcp_servers.opencomms]\r\ncommand = "node"\r\nargs = ["""/a/.opencomms/opencomms.js""", "--project", "/a", "--host", "codex"]\r\n';
  assert.equal(locateOurArgs(text)!.strings, undefined);
  const out = setOurArgs(text, NEW)!;
  assert.equal(out, '[mcp_servers.opencomms]\r\ncommand = "node"\r\nargs = ["/b/.opencomms/opencomms.js", "--project", "/b", "--host", "codex"]\r\n');
});

test('a path that needs escapes is written as a basic string, and reads back the same', () => {
  const text = "[mcp_servers.opencomms]\ncommand = 'node'\nargs = ['/a/.opencomms/opencomms.js', '--project', '/a']\n";
  const odd = ["/it's/.opencomms/opencomms.js", '--project', "/it's"];
  const out = setOurArgs(text, odd)!;
  assert.deepEqual(readOurServer(out)!.args, odd);
  assert.ok(out.includes(`"/it's/.opencomms/opencomms.js"`), out);
});
