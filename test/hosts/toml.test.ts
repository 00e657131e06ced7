import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  quoteTomlString, readOurServer, removeOurTables, renderOurTables, TomlError, upsertOurTables, type OurServer,
} from '../../src/hosts/toml';

const SERVER: OurServer = {
  command: 'node',
  args: ['/p/.opencomms/opencomms.js', '--project', '/p', '--host', 'codex'],
  env: { OPENCOMMS_MEMBER_ID: 'sess_abc' },
};

const OTHER: OurServer = { ...SERVER, env: { OPENCOMMS_MEMBER_ID: 'sess_other' } };

const UNRELATED = [
  '# my codex config',
  'model = "o3"  # trailing comment',
  'notify = ["say", \'done\', """multi',
  '[not] a table"""]',
  '',
  '[mcp_servers.other]',
  'command = "python"',
  'args = [',
  '  "-m", # comment inside an array',
  '  "srv",',
  ']',
  'env = { A = "1", B = { c = 2 } }',
  '',
  "[profiles.'x.y']",
  'when = 1979-05-27T07:32:00Z',
  'ratio = -1.5e3',
  '',
].join('\n');

test('inserting into an empty file gives exactly our two tables', () => {
  assert.equal(upsertOurTables('', SERVER), renderOurTables(SERVER));
  assert.equal(upsertOurTables('\n\n', SERVER), renderOurTables(SERVER));
});

test('inserting after unrelated tables keeps every other byte and adds one blank line', () => {
  const out = upsertOurTables(UNRELATED, SERVER);
  assert.equal(out, `${UNRELATED}\n${renderOurTables(SERVER)}`);
});

test('inserting into a file with no final newline ends its last line first', () => {
  assert.equal(upsertOurTables('a = 1', SERVER), `a = 1\n\n${renderOurTables(SERVER)}`);
});

test('insert then remove gives back the original bytes', () => {
  assert.equal(removeOurTables(upsertOurTables(UNRELATED, SERVER)), UNRELATED);
  assert.equal(removeOurTables(upsertOurTables('', SERVER)), '');
});

test('a second upsert with the same server changes nothing', () => {
  const once = upsertOurTables(UNRELATED, SERVER);
  assert.equal(upsertOurTables(once, SERVER), once);
});

test('our tables in the middle of a file are edited where they stand: our keys set, the user\'s keys kept', () => {
  const head = 'model = "o3"\n\n[mcp_servers.before]\ncommand = "a"\n\n';
  const tail = '\n# about the next table\n[mcp_servers.after]\ncommand = "b"\n';
  const ours = '[mcp_servers.opencomms]\ncommand = "old"\nargs = ["x"]\nstartup_timeout_sec = 5\n\n' +
    '[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_old"\nEXTRA = "1"\n';
  const out = upsertOurTables(head + ours + tail, SERVER);
  assert.equal(out, head +
    '[mcp_servers.opencomms]\ncommand = "node"\nargs = ["/p/.opencomms/opencomms.js", "--project", "/p", "--host", "codex"]\nstartup_timeout_sec = 5\n\n' +
    '[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_abc"\nEXTRA = "1"\n' + tail);
  assert.deepEqual(readOurServer(out), { ...SERVER, env: { OPENCOMMS_MEMBER_ID: 'sess_abc', EXTRA: '1' } });
  assert.equal(upsertOurTables(out, SERVER), out, 'a second run changes nothing');
});

test('an env table placed far from the main table is edited where it stands', () => {
  const text = '[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_old"\n\n[a]\nx = 1\n\n' +
    '[mcp_servers.opencomms]\ncommand = "old"\nargs = []\n\n[b]\ny = 2\n';
  const out = upsertOurTables(text, OTHER);
  assert.equal(out, '[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_other"\n\n[a]\nx = 1\n\n' +
    '[mcp_servers.opencomms]\ncommand = "node"\nargs = ["/p/.opencomms/opencomms.js", "--project", "/p", "--host", "codex"]\n\n[b]\ny = 2\n');
  assert.deepEqual(readOurServer(out), OTHER);
});

test('missing keys of ours are added to the user\'s table, an inline env is merged, and sub-tables are kept', () => {
  const text = '[mcp_servers.opencomms]\nstartup_timeout_sec = 30\nenv = { EXTRA = "1", OPENCOMMS_MEMBER_ID = "old" }\n\n' +
    '[mcp_servers.opencomms.tools.opencomms_send]\napproval_mode = "approve"\n';
  const out = upsertOurTables(text, SERVER);
  assert.equal(out, '[mcp_servers.opencomms]\nstartup_timeout_sec = 30\nenv = { EXTRA = "1", OPENCOMMS_MEMBER_ID = "sess_abc" }\n' +
    'command = "node"\nargs = ["/p/.opencomms/opencomms.js", "--project", "/p", "--host", "codex"]\n\n' +
    '[mcp_servers.opencomms.tools.opencomms_send]\napproval_mode = "approve"\n');
  assert.deepEqual(readOurServer(out), { ...SERVER, env: { EXTRA: '1', OPENCOMMS_MEMBER_ID: 'sess_abc' } });
  assert.equal(upsertOurTables(out, SERVER), out);
});

test('a main table with no env gets our env table right after it; CRLF files stay CRLF; a file without a final newline is extended cleanly', () => {
  const crlf = '[mcp_servers.opencomms]\r\ncommand = "old"\r\nargs = []\r\n\r\n[b]\r\ny = 2\r\n';
  const out = upsertOurTables(crlf, SERVER);
  assert.equal(out.replace(/\r\n/g, '').includes('\n'), false, `a bare LF crept in: ${JSON.stringify(out)}`);
  assert.deepEqual(readOurServer(out), SERVER);
  const bare = upsertOurTables('[mcp_servers.opencomms]\ncommand = "old"', SERVER);
  assert.equal(bare, '[mcp_servers.opencomms]\ncommand = "node"' + '\nargs = ["/p/.opencomms/opencomms.js", "--project", "/p", "--host", "codex"]\n\n[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_abc"\n');
  assert.deepEqual(readOurServer(bare), SERVER);
});

test('env set by dotted keys or as something other than a table of strings is refused, not guessed at', () => {
  assert.throws(() => upsertOurTables('[mcp_servers.opencomms]\ncommand = "x"\nenv.A = "1"\n', SERVER), TomlError);
  assert.throws(() => upsertOurTables('[mcp_servers.opencomms]\ncommand = "x"\nenv = "nope"\n', SERVER), TomlError);
});

test('removing takes out our tables and sub-tables and nothing else', () => {
  const text = '[a]\nx = 1\n\n[mcp_servers.opencomms]\ncommand = "node"\nargs = []\n\n' +
    '[mcp_servers.opencomms.env]\nK = "v"\n\n[mcp_servers.opencomms.tools.t]\nenabled = true\n\n[b]\ny = 2\n';
  assert.equal(removeOurTables(text), '[a]\nx = 1\n\n[b]\ny = 2\n');
});

test('removing from a file without our tables returns it unchanged', () => {
  assert.equal(removeOurTables(UNRELATED), UNRELATED);
});

test('a table named like ours but longer ([mcp_servers.opencomms2]) is not ours', () => {
  const text = '[mcp_servers.opencomms2]\ncommand = "x"\n';
  assert.equal(removeOurTables(text), text);
  assert.equal(readOurServer(text), undefined);
});

test('quoted header keys that spell our table are recognised', () => {
  const text = '[ mcp_servers . "opencomms" ]\ncommand = "node"\nargs = ["a"]\n';
  assert.deepEqual(readOurServer(text), { command: 'node', args: ['a'], env: {} });
  assert.equal(removeOurTables(text), '');
});

test('quotes, backslashes, control characters and unicode round-trip through our strings', () => {
  const tricky: OurServer = {
    command: 'C:\\Program Files\\nodejs\\node.exe',
    args: ['C:\\Users\\ÅSA "q"\\proj\\.opencomms\\opencomms.js', 'tab\there', 'nl\nhere', 'emoji 🛰️', '\u0001\u007f'],
    env: { OPENCOMMS_MEMBER_ID: 'sess_ü' },
  };
  const text = upsertOurTables('', tricky);
  assert.ok(text.includes('"C:\\\\Program Files\\\\nodejs\\\\node.exe"'));
  assert.ok(text.includes('\\"q\\"'));
  assert.ok(text.includes('\\u0001\\u007F'));
  assert.deepEqual(readOurServer(text), tricky);
});

test('quoteTomlString escapes exactly quotes, backslashes and control characters', () => {
  assert.equal(quoteTomlString('a"b\\c'), '"a\\"b\\\\c"');
  assert.equal(quoteTomlString('é漢'), '"é漢"');
});

test('literal, multi-line and escaped strings elsewhere in the file are followed', () => {
  const text = "a = 'C:\\no\\escape'\nb = '''\nline [x]\n'''\nc = \"\"\"\n[fake.header]\n\\\"\"\"\"\"\nd = \"\\u00e9\"\n";
  assert.equal(removeOurTables(upsertOurTables(text, SERVER)), text);
});

test('CRLF files are edited without touching their other bytes', () => {
  const text = '[a]\r\nx = 1\r\n';
  const out = upsertOurTables(text, SERVER);
  assert.ok(out.startsWith(text));
  assert.equal(removeOurTables(out), text);
});

const MALFORMED: [string, string][] = [
  ['our table defined twice', '[mcp_servers.opencomms]\ncommand = "a"\n[mcp_servers.opencomms]\ncommand = "b"\n'],
  ['our env table defined twice', '[mcp_servers.opencomms.env]\n[x]\n[mcp_servers.opencomms.env]\n'],
  ['an unterminated string in our table', '[mcp_servers.opencomms]\ncommand = "node\nargs = []\n'],
  ['an unterminated array in our table', '[mcp_servers.opencomms]\nargs = ["a",\n'],
  ['an unterminated multi-line string', 'a = """never closed\n'],
  ['an unterminated literal string', "a = 'open\n"],
  ['an unterminated inline table', 'a = { b = 1\n'],
  ['a missing equals sign', 'a "b"\n'],
  ['a malformed header', '[mcp_servers.opencomms\ncommand = "a"\n'],
  ['junk after a value', 'a = "b" c\n'],
  ['a bad escape', 'a = "\\q"\n'],
  ['our table as an inline table', '[mcp_servers]\nopencomms = { command = "node" }\n'],
  ['our table by dotted keys at the root', 'mcp_servers.opencomms.command = "node"\n'],
  ['mcp_servers as an inline table', 'mcp_servers = { other = { command = "x" } }\n'],
  ['our table as an array of tables', '[[mcp_servers.opencomms]]\ncommand = "node"\n'],
  ['a missing comma in an array', 'a = ["x" "y"]\n'],
];

for (const [what, text] of MALFORMED) {
  test(`refuses ${what}`, () => {
    assert.throws(() => upsertOurTables(text, SERVER), TomlError);
    assert.throws(() => removeOurTables(text), TomlError);
  });
}
