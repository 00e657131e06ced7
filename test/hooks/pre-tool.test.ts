// Reservations enforced where the edit happens: each host's pre-tool event
// shape, denied, warned, passed, and failing open.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { reservePaths } from '../../src/engine/index';
import { channelWith, claudeEvent, codexEvent, geminiEvent, hook, stateOf, tempProject } from './support';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

const HOLDER = 'alice-1';
const EDITOR = 'bob-1';

async function reserved(t: Parameters<typeof tempProject>[0], paths: string[], exclusive = true) {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: HOLDER, role: 'author', host: 'mcp' },
    { id: EDITOR, role: 'reviewer', host: 'claude-code', hostSessionId: 'bob-session' },
  ]);
  await edit(store, (state, ctx) => reservePaths(state, {
    channel: 'review', session_id: HOLDER, paths, exclusive, reason: 'rewriting the parser', project_dir: project,
  }, ctx));
  return { project, store };
}

function claudeEdit(project: string, file: string, tool = 'Edit') {
  return claudeEvent('PreToolUse', 'bob-session', {
    cwd: project, tool_name: tool, tool_input: { file_path: file, old_string: 'a', new_string: 'b' }, tool_use_id: 'toolu_1',
  });
}

test('Claude Code: an Edit of a file another member holds exclusively is denied in PreToolUse\'s deny format, naming the holder, reason, expiry and how to ask', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  const run = await hook(project, claudeEdit(project, join(project, 'src', 'a.ts')), { OPENCOMMS_HOST: 'claude-code' });
  const out = run.answer.hookSpecificOutput;
  assert.equal(out.hookEventName, 'PreToolUse');
  assert.equal(out.permissionDecision, 'deny');
  assert.match(out.permissionDecisionReason, /src\/a\.ts is reserved exclusively by author \(alice-1\) until \d{4}-/);
  assert.match(out.permissionDecisionReason, /\n<<<UNTRUSTED_PEER_MESSAGE nonce=[0-9a-f]+>>>\nrewriting the parser\n<<<END_UNTRUSTED_PEER_MESSAGE nonce=/, 'the reason, as peer data');
  assert.match(out.permissionDecisionReason, /opencomms_send with channel "review", to "alice-1"/);
});

test('a committed reservation whose expiry lies years ahead binds nothing: the edit it would deny passes', async (t) => {
  const { project, store } = await reserved(t, ['src/a.ts']);
  // The state.json a repository can ship: the holder's reservation "until" ten years from now.
  const text = readFileSync(statePathOf(store), 'utf8');
  assert.match(text, /"expires_at":\d+/);
  writeFileSync(statePathOf(store), text.replace(/"expires_at":\d+/g, `"expires_at":${Date.now() + 10 * 365 * 86_400_000}`));
  const run = await hook(project, claudeEdit(project, join(project, 'src', 'a.ts')), { OPENCOMMS_HOST: 'claude-code' });
  assert.notEqual(run.answer.hookSpecificOutput?.permissionDecision, 'deny');
});

// Claude Code (2.1.332) shows every PreToolUse deny to the model as
// "PreToolUse:Edit hook error: <reason>" (scripts/check-hosts-deny.sh), so the
// reason itself must say at once that the refusal is deliberate.
test('a deny reads as a deliberate refusal of the edit, not as a failure, whatever label the host puts before it', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  const claude = (await hook(project, claudeEdit(project, join(project, 'src', 'a.ts')), { OPENCOMMS_HOST: 'claude-code' })).answer.hookSpecificOutput;
  assert.match(claude.permissionDecisionReason, /^OpenComms refused this edit on purpose \(nothing failed\): another agent holds the file\. src\/a\.ts is reserved/);
  const gemini = geminiEvent('BeforeTool', 'gemini-session', { cwd: project, tool_name: 'write_file', tool_input: { file_path: 'src/a.ts', content: 'x' } });
  assert.match((await hook(project, gemini, { OPENCOMMS_HOST: 'gemini-cli' })).answer.reason, /^OpenComms refused this edit on purpose \(nothing failed\)/);
});

test('Claude Code: Write, MultiEdit and NotebookEdit are checked too, with relative paths resolved against the event cwd', async (t) => {
  const { project } = await reserved(t, ['src/**']);
  for (const tool of ['Write', 'MultiEdit']) {
    const run = await hook(project, claudeEdit(project, 'src/deep/b.ts', tool), { OPENCOMMS_HOST: 'claude-code' });
    assert.equal(run.answer.hookSpecificOutput?.permissionDecision, 'deny', tool);
  }
  const notebook = claudeEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'NotebookEdit', tool_input: { notebook_path: join(project, 'src', 'n.ipynb') } });
  assert.equal((await hook(project, notebook, { OPENCOMMS_HOST: 'claude-code' })).answer.hookSpecificOutput?.permissionDecision, 'deny');
});

test('a file held shared by another member is allowed with a warning in context; a free file and other tools pass silently', async (t) => {
  const { project } = await reserved(t, ['docs/**'], false);
  const warned = await hook(project, claudeEdit(project, join(project, 'docs', 'guide.md')), { OPENCOMMS_HOST: 'claude-code' });
  assert.equal(warned.answer.hookSpecificOutput.permissionDecision, undefined, 'never an allow that would skip the user\'s own permission prompt');
  assert.match(warned.answer.hookSpecificOutput.additionalContext, /docs\/guide\.md is reserved shared by author \(alice-1\)/);
  assert.deepEqual((await hook(project, claudeEdit(project, join(project, 'src', 'free.ts')), { OPENCOMMS_HOST: 'claude-code' })).answer, {});
  const read = claudeEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'Read', tool_input: { file_path: join(project, 'docs', 'guide.md') } });
  assert.deepEqual((await hook(project, read, { OPENCOMMS_HOST: 'claude-code' })).answer, {});
  const outside = claudeEdit(project, '/etc/hosts');
  assert.deepEqual((await hook(project, outside, { OPENCOMMS_HOST: 'claude-code' })).answer, {});
});

test('the holder\'s own edits pass silently', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  const own = claudeEdit(project, join(project, 'src', 'a.ts'));
  assert.deepEqual((await hook(project, own, { OPENCOMMS_HOST: 'claude-code', OPENCOMMS_MEMBER_ID: HOLDER })).answer, {});
});

test('Codex: an apply_patch that touches a reserved file is denied, whatever shell wrapping carries the patch', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  const patch = '*** Begin Patch\n*** Update File: src/b.ts\n@@\n-x\n+y\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n';
  for (const toolInput of [{ command: ['apply_patch', patch] }, { command: `apply_patch <<'EOF'\n${patch}EOF` }, { input: patch }]) {
    const event = codexEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'Bash', tool_input: toolInput });
    const run = await hook(project, event, { OPENCOMMS_HOST: 'codex', OPENCOMMS_MEMBER_ID: EDITOR });
    assert.equal(run.answer.hookSpecificOutput?.permissionDecision, 'deny', JSON.stringify(toolInput));
  }
  const harmless = codexEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'Bash', tool_input: { command: ['ls', '-la'] } });
  assert.deepEqual((await hook(project, harmless, { OPENCOMMS_HOST: 'codex', OPENCOMMS_MEMBER_ID: EDITOR })).answer, {});
});

// Header lines as Codex's apply-patch parser reads them: each hunk header
// after trimming whitespace (Rust's str::trim), lines split at LF with a CR
// before it dropped, and paths relative to a `cd <dir> &&` prefix or `workdir`.
const HELD_PATCHES: [string, Record<string, unknown>][] = [
  ['an indented header', { command: ['apply_patch', '*** Begin Patch\n  *** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n'] }],
  ['a tab-indented header', { command: ['apply_patch', '*** Begin Patch\n\t*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\n'] }],
  ['an indented envelope and header', { input: '  *** Begin Patch\n    *** Update File: src/a.ts\n    @@\n-a\n+b\n  *** End Patch\n' }],
  ['CRLF line ends', { command: ['apply_patch', '*** Begin Patch\r\n*** Update File: src/a.ts\r\n@@\r\n-a\r\n+b\r\n*** End Patch\r\n'] }],
  ['trailing spaces and tabs after the path', { command: ['apply_patch', '*** Begin Patch\n*** Delete File: src/a.ts \t \n*** End Patch\n'] }],
  ['a no-break space and a NEL before the header', { command: ['apply_patch', '*** Begin Patch\n\u00a0\u0085*** Add File: src/a.ts\n+x\n*** End Patch\n'] }],
  ['an indented Add File after another hunk', { command: ['apply_patch', '*** Begin Patch\n*** Add File: src/new.ts\n+x\n   *** Add File: src/a.ts\n+y\n*** End Patch\n'] }],
  ['a Move to onto the held file', { command: ['apply_patch', '*** Begin Patch\n*** Update File: src/b.ts\n*** Move to: src/a.ts\n@@\n-a\n+b\n*** End Patch\n'] }],
  ['a heredoc after cd into the folder', { command: ['bash', '-lc', "cd src && apply_patch <<'EOF'\n*** Begin Patch\n  *** Update File: a.ts\n@@\n-a\n+b\n*** End Patch\nEOF\n"] }],
  ['a quoted cd', { command: ['bash', '-lc', 'cd "src" && apply_patch <<EOF\n*** Begin Patch\n*** Update File: a.ts\n@@\n-a\n+b\n*** End Patch\nEOF\n'] }],
  ['a shell tool workdir', { command: "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a.ts\n@@\n-a\n+b\n*** End Patch\nEOF\n", workdir: 'src' }],
];

for (const [what, toolInput] of HELD_PATCHES) {
  test(`Codex: an apply_patch with ${what} that touches a held file is denied, as Codex reads its headers`, async (t) => {
    const { project } = await reserved(t, ['src/a.ts']);
    const event = codexEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'apply_patch', tool_input: toolInput });
    const run = await hook(project, event, { OPENCOMMS_HOST: 'codex', OPENCOMMS_MEMBER_ID: EDITOR });
    assert.equal(run.answer.hookSpecificOutput?.permissionDecision, 'deny', JSON.stringify(toolInput));
  });
}

test('Codex: a patch line that Codex does not read as a header of the held file passes', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  const free: Record<string, unknown>[] = [
    { command: ['apply_patch', '*** Begin Patch\n*** Add File: docs/format.md\n+*** Update File: src/a.ts\n*** End Patch\n'] },
    { command: ['apply_patch', '*** Begin Patch\n*** Update File:src/a.ts\n@@\n-a\n+b\n*** End Patch\n'] },
    { command: ['bash', '-lc', "cd lib && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: src/a.ts\n@@\n-a\n+b\n*** End Patch\nEOF\n"] },
  ];
  for (const toolInput of free) {
    const event = codexEvent('PreToolUse', 'bob-session', { cwd: project, tool_name: 'apply_patch', tool_input: toolInput });
    assert.deepEqual((await hook(project, event, { OPENCOMMS_HOST: 'codex', OPENCOMMS_MEMBER_ID: EDITOR })).answer, {}, JSON.stringify(toolInput));
  }
});

// Symbolic links: a held file is the same file by whatever link it is reached.
function linkedTree(t: Parameters<typeof tempProject>[0], project: string): { outside: string } {
  mkdirSync(join(project, 'src'), { recursive: true });
  writeFileSync(join(project, 'src', 'a.ts'), 'a\n');
  symlinkSync('src', join(project, 'alias'));
  const outside = mkdtempSync(join(tmpdir(), 'oc-outside-'));
  t.after(() => rmSync(outside, { recursive: true, force: true }));
  writeFileSync(join(outside, 'x.ts'), 'x\n');
  symlinkSync(outside, join(project, 'ext'));
  symlinkSync('missing-target', join(project, 'dangling'));
  symlinkSync('loop', join(project, 'loop'));
  return { outside };
}

test('an edit through a link inside the project of a file another member holds is denied', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  linkedTree(t, project);
  for (const file of [join(project, 'alias', 'a.ts'), 'alias/a.ts', 'alias/../alias/./a.ts']) {
    const run = await hook(project, claudeEdit(project, file), { OPENCOMMS_HOST: 'claude-code' });
    assert.equal(run.answer.hookSpecificOutput?.permissionDecision, 'deny', file);
  }
});

test('a project reached through a link holds its files: by the link\'s path, from a cwd under the link, or by the real path', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  linkedTree(t, project);
  const parent = mkdtempSync(join(tmpdir(), 'oc-link-'));
  t.after(() => rmSync(parent, { recursive: true, force: true }));
  const linked = join(parent, 'project');
  symlinkSync(project, linked);
  const cases: [string, Record<string, unknown>][] = [
    [linked, claudeEdit(project, join(project, 'src', 'a.ts'))],
    [linked, claudeEdit(linked, 'src/a.ts')],
    [project, claudeEdit(linked, 'src/a.ts')],
    [project, claudeEdit(project, join(linked, 'alias', 'a.ts'))],
    [linked, claudeEdit(linked, join(linked, 'src', 'a.ts'))],
  ];
  for (const [projectDir, event] of cases) {
    const run = await hook(projectDir, event, { OPENCOMMS_HOST: 'claude-code' });
    assert.equal(run.answer.hookSpecificOutput?.permissionDecision, 'deny', `${projectDir} ${JSON.stringify(event)}`);
  }
});

test('a new file under a linked folder is denied when a held glob covers its real path', async (t) => {
  const { project } = await reserved(t, ['src/**']);
  linkedTree(t, project);
  const run = await hook(project, claudeEdit(project, join(project, 'alias', 'new', 'deeper', 'b.ts'), 'Write'), { OPENCOMMS_HOST: 'claude-code' });
  assert.equal(run.answer.hookSpecificOutput?.permissionDecision, 'deny');
});

test('a link that leads out of the project leads to a file outside it: allowed, as are dangling and looping links, and nothing breaks', async (t) => {
  const { project } = await reserved(t, ['ext/**', 'dangling/**', '**/*.md']);
  linkedTree(t, project);
  const outside = await hook(project, claudeEdit(project, join(project, 'ext', 'x.ts')), { OPENCOMMS_HOST: 'claude-code' });
  assert.deepEqual(outside.answer, {});
  assert.deepEqual(outside.warnings, []);
  const dangling = await hook(project, claudeEdit(project, join(project, 'dangling', 'y.ts')), { OPENCOMMS_HOST: 'claude-code' });
  assert.equal(dangling.answer.hookSpecificOutput?.permissionDecision, 'deny', 'a link to nothing is judged by its own name');
  const loop = await hook(project, claudeEdit(project, join(project, 'loop', 'z.md')), { OPENCOMMS_HOST: 'claude-code' });
  assert.equal(loop.answer.hookSpecificOutput?.permissionDecision, 'deny', 'a looping link is judged by its own name');
  assert.deepEqual(loop.warnings, []);
});

test('Gemini CLI: a write_file or replace of a reserved file is denied with BeforeTool\'s decision: deny', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  for (const tool of ['write_file', 'replace']) {
    const event = geminiEvent('BeforeTool', 'gemini-session', { cwd: project, tool_name: tool, tool_input: { file_path: join(project, 'src', 'a.ts'), content: 'x' } });
    const run = await hook(project, event, { OPENCOMMS_HOST: 'gemini-cli', OPENCOMMS_MEMBER_ID: EDITOR });
    assert.equal(run.answer.decision, 'deny', tool);
    assert.match(run.answer.reason, /reserved exclusively by author \(alice-1\)/);
  }
});

test('a pre-tool hook that cannot read the store fails open: the edit proceeds and the reason goes to stderr', async (t) => {
  const { project } = await reserved(t, ['src/a.ts']);
  writeFileSync(join(project, '.opencomms', 'state.json'), '{"generation":3,"not json');
  const run = await hook(project, claudeEdit(project, join(project, 'src', 'a.ts')), { OPENCOMMS_HOST: 'claude-code' });
  assert.equal(run.answer.hookSpecificOutput?.permissionDecision, undefined);
});

test('after the holder releases, the same edit passes', async (t) => {
  const { project, store } = await reserved(t, ['src/a.ts']);
  const editCall = claudeEdit(project, join(project, 'src', 'a.ts'));
  assert.equal((await hook(project, editCall, { OPENCOMMS_HOST: 'claude-code' })).answer.hookSpecificOutput?.permissionDecision, 'deny');
  await edit(store, (state) => {
    state.channels.review!.reservations = [];
    return { ok: true, message: 'released' };
  });
  assert.deepEqual((await hook(project, editCall, { OPENCOMMS_HOST: 'claude-code' })).answer, {});
});

test('PostToolUse after an Edit records it, and a second member\'s edit of the same file queues a notice to both', async (t) => {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: HOLDER, role: 'author', host: 'claude-code', hostSessionId: 'alice-session' },
    { id: EDITOR, role: 'reviewer', host: 'claude-code', hostSessionId: 'bob-session' },
  ]);
  const edited = (session: string) => claudeEvent('PostToolUse', session, {
    cwd: project, tool_name: 'Edit', tool_input: { file_path: join(project, 'src', 'same.ts') }, tool_response: { success: true },
  });
  await hook(project, edited('alice-session'), { OPENCOMMS_HOST: 'claude-code' });
  await hook(project, edited('bob-session'), { OPENCOMMS_HOST: 'claude-code' });
  const notices = Object.values(stateOf(store).messages).filter((e) => e.message_type === 'system');
  assert.deepEqual(notices.map((e) => e.recipient_session_id).sort(), [EDITOR, HOLDER].sort());
  const next = await hook(project, claudeEvent('UserPromptSubmit', 'alice-session'), { OPENCOMMS_HOST: 'claude-code' });
  assert.match(next.answer.hookSpecificOutput.additionalContext, /both edited src\/same\.ts/);
});
