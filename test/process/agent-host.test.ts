// Telling an agent host from a person's terminal: by the host's variables,
// and by a host program among the ancestors (a fake process table here).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { agentHostAncestor, agentHostFromEnv, findAgentHost, hostOfCommand } from '../../src/process/agent-host';

test('each host is named by a variable it sets; empty, 0 and false do not count', () => {
  assert.equal(agentHostFromEnv({ CLAUDECODE: '1' })?.host, 'Claude Code');
  assert.equal(agentHostFromEnv({ CODEX_THREAD_ID: '019a-thread' })?.host, 'Codex');
  assert.equal(agentHostFromEnv({ GEMINI_CLI: '1' })?.host, 'Gemini CLI');
  assert.equal(agentHostFromEnv({ OPENCODE: '1' })?.host, 'OpenCode');
  assert.match(agentHostFromEnv({ CODEX_SANDBOX: 'seatbelt' })!.evidence, /CODEX_SANDBOX/);
  for (const value of ['', ' ', '0', 'false', 'FALSE']) assert.equal(agentHostFromEnv({ CLAUDECODE: value }), undefined, JSON.stringify(value));
  assert.equal(agentHostFromEnv({ HOME: '/home/ada', TERM: 'xterm' }), undefined);
});

test('a host program is known by its own name or by the script node runs', () => {
  assert.equal(hostOfCommand(['/usr/local/bin/claude', '--resume']), 'Claude Code');
  assert.equal(hostOfCommand(['codex.exe']), 'Codex');
  assert.equal(hostOfCommand(['node', '--no-warnings', '/usr/lib/node_modules/@google/gemini-cli/dist/index.js']), 'Gemini CLI');
  assert.equal(hostOfCommand(['node', '/home/ada/.npm/bin/opencode']), 'OpenCode');
  assert.equal(hostOfCommand(['bun', '/x/node_modules/@anthropic-ai/claude-code/cli.js']), 'Claude Code');
  assert.equal(hostOfCommand(['node', '/home/ada/codex/project/server.js']), undefined, 'a folder named codex is not the host');
  assert.equal(hostOfCommand(['bash', '-c', 'claude']), undefined);
  assert.equal(hostOfCommand(['node']), undefined);
  assert.equal(hostOfCommand([]), undefined);
});

test('the ancestor walk finds a host a few shells up, and stops at the root or an unreadable process', () => {
  const table: Record<number, { ppid: number; argv: string[] }> = {
    40: { ppid: 30, argv: ['bash'] }, 30: { ppid: 20, argv: ['/bin/zsh', '-c', 'x'] }, 20: { ppid: 1, argv: ['/opt/claude/claude'] },
    12: { ppid: 1, argv: ['tmux'] },
  };
  const read = (pid: number) => table[pid];
  assert.deepEqual(agentHostAncestor(40, read), { host: 'Claude Code', evidence: 'the ancestor process claude (pid 20)' });
  assert.equal(agentHostAncestor(12, read), undefined);
  assert.equal(agentHostAncestor(99, read), undefined, 'an unreadable process ends the walk');
  const loop = (pid: number) => ({ ppid: pid, argv: ['sh'] });
  assert.equal(agentHostAncestor(5, loop), undefined, 'a cycle ends after the hop limit');
});

test('this test runs in no agent host (else every person test here would be refused)', () => {
  const env = { ...process.env };
  for (const key of Object.keys(env)) if (/^(CLAUDE|CODEX|GEMINI|OPENCODE)/.test(key)) delete env[key];
  assert.equal(findAgentHost(env), undefined);
});
