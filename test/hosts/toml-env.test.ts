// Taking the old member id out of our env in a Codex config.toml: that key
// only, the table with it when nothing else is in it, every other byte kept.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dropOurTomlVariable } from '../../src/hosts/toml-env';

const MAIN = '[mcp_servers.opencomms]\ncommand = "node"\nargs = ["x"]\n';

test('the key goes and the other variables of the env table stay, comments and all', () => {
  const text = `${MAIN}\n[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_a"\nMINE = "1" # keep\n\n[other]\nk = 1\n`;
  assert.equal(dropOurTomlVariable(text, 'OPENCOMMS_MEMBER_ID'), `${MAIN}\n[mcp_servers.opencomms.env]\nMINE = "1" # keep\n\n[other]\nk = 1\n`);
});

test('an env table left empty goes with the blank line before it, and the table after it keeps its place', () => {
  const text = `${MAIN}\n[mcp_servers.opencomms.env]\nOPENCOMMS_MEMBER_ID = "sess_a"\n\n[other]\nk = 1\n`;
  assert.equal(dropOurTomlVariable(text, 'OPENCOMMS_MEMBER_ID'), `${MAIN}\n[other]\nk = 1\n`);
  assert.equal(dropOurTomlVariable(`${MAIN}\n[mcp_servers.opencomms.env]\n`, 'OPENCOMMS_MEMBER_ID'), MAIN);
});

test('an empty env table with a comment of the user is kept', () => {
  const text = `${MAIN}\n[mcp_servers.opencomms.env]\n# variables for later\n`;
  assert.equal(dropOurTomlVariable(text, 'OPENCOMMS_MEMBER_ID'), text);
});

test('an empty env table at the top of the file goes with the blank lines after it', () => {
  const text = `[mcp_servers.opencomms.env]\n\n\n${MAIN}`;
  assert.equal(dropOurTomlVariable(text, 'OPENCOMMS_MEMBER_ID'), MAIN);
});

test('an inline env loses the key and keeps the rest, or goes when nothing is left', () => {
  const withOther = '[mcp_servers.opencomms]\ncommand = "node"\nenv = { OPENCOMMS_MEMBER_ID = "sess_a", "odd key" = "v" }\r\nargs = []\n';
  assert.equal(dropOurTomlVariable(withOther, 'OPENCOMMS_MEMBER_ID'), '[mcp_servers.opencomms]\ncommand = "node"\nenv = { "odd key" = "v" }\r\nargs = []\n');
  const alone = '[mcp_servers.opencomms]\ncommand = "node"\nenv = { OPENCOMMS_MEMBER_ID = "sess_a" }\nargs = []\n';
  assert.equal(dropOurTomlVariable(alone, 'OPENCOMMS_MEMBER_ID'), '[mcp_servers.opencomms]\ncommand = "node"\nargs = []\n');
});

test('a file without the key, or without our server, is returned as it is', () => {
  for (const text of ['', 'model = "o3"\n', `${MAIN}env = { A = "1" }\n`, `${MAIN}\n[mcp_servers.opencomms.env]\nA = "1"\n`]) {
    assert.equal(dropOurTomlVariable(text, 'OPENCOMMS_MEMBER_ID'), text);
  }
});
