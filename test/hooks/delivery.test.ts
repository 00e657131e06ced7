// Mail through hooks: each event with and without mail, the answer format of
// each host, commit only after the answer, and channel labels.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { hostname } from 'node:os';
import { processHostTag } from '../../src/process/place';
import { test } from 'node:test';
import { commitDelivery, emptyState, parseFrames, pullMessages, sendMessage } from '../../src/engine/index';
import { deliverableMail, needsDelivery } from '../../src/hooks/deliver';
import {
  channelWith, claudeEvent, codexEvent, geminiEvent, hook, historyRecord, send, stateOf, statusOf, tempProject, textOf,
} from './support';
import { statePathOf } from '../helpers/store-paths';
import { edit } from '../helpers/edit';

const ALICE = 'alice-1';
const BOB = 'bob-1';
const SID = 'sess-alice';

async function pair(t: Parameters<typeof tempProject>[0], aliceHost = 'claude-code') {
  const project = tempProject(t);
  const store = await channelWith(project, 'review', [
    { id: BOB, role: 'reviewer', host: 'mcp' },
    { id: ALICE, role: 'author', host: aliceHost, hostSessionId: SID },
  ]);
  return { project, store };
}

for (const name of ['UserPromptSubmit', 'PostToolUse', 'SessionStart', 'Stop', 'SessionEnd']) {
  test(`${name} with no mail answers {}${name === 'SessionEnd' ? '' : ' and writes nothing'}`, async (t) => {
    const { project, store } = await pair(t);
    // A session's first start links it to its member (once; see the session-links tests).
    if (name === 'SessionStart') await hook(project, claudeEvent(name, SID));
    const before = readFileSync(statePathOf(store));
    const mtime = statSync(statePathOf(store)).mtimeMs;
    const run = await hook(project, claudeEvent(name, SID));
    assert.deepEqual(run.answer, {});
    assert.deepEqual(run.warnings, []);
    if (name !== 'SessionEnd') {
      assert.deepEqual(readFileSync(statePathOf(store)), before);
      assert.equal(statSync(statePathOf(store)).mtimeMs, mtime);
    }
  });
}

for (const name of ['UserPromptSubmit', 'PostToolUse', 'SessionStart']) {
  test(`${name} with mail answers additionalContext with the framed batch, then commits it`, async (t) => {
    const { project, store } = await pair(t);
    const [id] = await send(store, 'review', BOB, ALICE, ['please look at parser.ts']);
    const run = await hook(project, claudeEvent(name, SID));
    assert.deepEqual(Object.keys(run.answer), ['hookSpecificOutput']);
    assert.equal(run.answer.hookSpecificOutput.hookEventName, name);
    const text = run.answer.hookSpecificOutput.additionalContext as string;
    assert.match(text, /1 new message from your channel peers/);
    assert.match(text, /on channel "review"/);
    const frames = parseFrames(text);
    assert.ok(frames.ok);
    assert.deepEqual(frames.frames.map((f) => f.content), ['please look at parser.ts']);
    assert.equal(statusOf(store, 'review', id!), 'delivered');
    assert.equal(historyRecord(store, 'review', id!)?.delivery_method, 'pull');
    // Delivered once: the next hook has nothing.
    assert.deepEqual((await hook(project, claudeEvent(name, SID))).answer, {});
  });
}

test('the mail is committed only after the answer is written', async (t) => {
  const { project, store } = await pair(t);
  const [id] = await send(store, 'review', BOB, ALICE, ['hello']);
  const seen: string[] = [];
  await hook(project, claudeEvent('UserPromptSubmit', SID), {}, {
    write: (text) => {
      assert.match(text, /hello/);
      const envelope = stateOf(store).messages[id!];
      seen.push(envelope!.delivery_status);
      assert.equal(envelope!.delivery_owner?.pid, process.pid);
    },
  });
  assert.deepEqual(seen, ['in_flight']);
  assert.equal(statusOf(store, 'review', id!), 'delivered');
});

test('an answer that cannot be written puts the mail back in the queue, in order', async (t) => {
  const { project, store } = await pair(t);
  const ids = await send(store, 'review', BOB, ALICE, ['first', 'second']);
  await hook(project, claudeEvent('UserPromptSubmit', SID), {}, {
    write: () => { throw new Error('EPIPE'); },
  });
  const state = stateOf(store);
  assert.deepEqual(state.queues[ALICE], ids);
  assert.deepEqual(ids.map((id) => state.messages[id]!.delivery_status), ['pending', 'pending']);
  const again = await hook(project, claudeEvent('UserPromptSubmit', SID));
  const frames = parseFrames(textOf(again.answer));
  assert.ok(frames.ok);
  assert.deepEqual(frames.frames.map((f) => f.content), ['first', 'second']);
});

test('an answer whose write fails after the call returned puts the mail back in the queue', async (t) => {
  const { project, store } = await pair(t);
  const ids = await send(store, 'review', BOB, ALICE, ['first', 'second']);
  const run = await hook(project, claudeEvent('UserPromptSubmit', SID), {}, {
    write: () => new Promise<void>((_, reject) => setImmediate(() => reject(new Error('EPIPE')))),
  });
  assert.match(run.warnings.join('\n'), /could not write its answer/);
  const state = stateOf(store);
  assert.deepEqual(state.queues[ALICE], ids);
  assert.deepEqual(ids.map((id) => state.messages[id]!.delivery_status), ['pending', 'pending']);
});

test('mail left in flight by a dead hook process is swept back and delivered', async (t) => {
  const { project, store } = await pair(t);
  const [id] = await send(store, 'review', BOB, ALICE, ['orphan']);
  await edit(store, (state) => {
    const envelope = state.messages[id!]!;
    envelope.delivery_status = 'in_flight';
    envelope.attempts = 1;
    envelope.delivery_owner = { pid: 2 ** 22 + 12345, host: processHostTag(), lease_until: Date.now() + 60_000 };
    state.queues[ALICE] = [];
    return { ok: true, message: 'orphaned' };
  });
  const run = await hook(project, claudeEvent('UserPromptSubmit', SID));
  assert.match(textOf(run.answer), /orphan/);
  assert.equal(statusOf(store, 'review', id!), 'delivered');
});

test('mail in flight under a process of another pid namespace on the same hostname waits for its lease, never judged by our kill(pid, 0)', async (t) => {
  const { project, store } = await pair(t);
  const [id] = await send(store, 'review', BOB, ALICE, ['held by a sidecar']);
  await edit(store, (state) => {
    const envelope = state.messages[id!]!;
    envelope.delivery_status = 'in_flight';
    envelope.attempts = 1;
    // The bare hostname, as a process in another container sharing it (or an older OpenComms) writes
    // it: its pid means nothing in our pid namespace, even a pid that is dead here.
    envelope.delivery_owner = { pid: 2 ** 22 + 12345, host: hostname(), lease_until: Date.now() + 60_000 };
    state.queues[ALICE] = [];
    return { ok: true, message: 'in flight elsewhere' };
  });
  const run = await hook(project, claudeEvent('UserPromptSubmit', SID));
  assert.deepEqual(run.answer, {});
  assert.equal(statusOf(store, 'review', id!), 'in_flight');
});

test('Stop blocks with the mail and a line asking to consider it before finishing', async (t) => {
  const { project, store } = await pair(t);
  const [id] = await send(store, 'review', BOB, ALICE, ['wait, one more thing']);
  const run = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: false }));
  assert.equal(run.answer.decision, 'block');
  assert.match(run.answer.reason, /wait, one more thing/);
  assert.match(run.answer.reason, /before you finish/);
  assert.equal(statusOf(store, 'review', id!), 'delivered');
});

test('Stop never loops on the same mail: a continuation blocks again only for new mail', async (t) => {
  const { project, store } = await pair(t);
  await send(store, 'review', BOB, ALICE, ['round one']);
  const first = await hook(project, claudeEvent('Stop', SID));
  assert.equal(first.answer.decision, 'block');
  // The host now runs the agent on; at its next stop stop_hook_active is true.
  const repeat = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: true }));
  assert.deepEqual(repeat.answer, {});
  await send(store, 'review', BOB, ALICE, ['round two']);
  const fresh = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: true }));
  assert.equal(fresh.answer.decision, 'block');
  assert.match(fresh.answer.reason, /round two/);
  assert.doesNotMatch(fresh.answer.reason, /round one/);
});

// Claude Code 2.1.163 and later go on with the turn when a Stop hook gives
// additionalContext, and show it to the model as plain hook context; a block
// is shown as "Stop hook feedback" under a standing-instruction preamble.
// Older versions ignore additionalContext at Stop and end the turn, so the
// mail would be lost: only a version the host names itself (AI_AGENT) gets it.
const CLAUDE_332 = { AI_AGENT: 'claude-code_2-1-332_harness' };

test('Stop in a Claude Code that names 2.1.163 or later in AI_AGENT hands the mail over as context, not as a block', async (t) => {
  for (const agent of ['claude-code_2-1-163_harness', CLAUDE_332.AI_AGENT, 'claude-code_3-0-0']) {
    const { project, store } = await pair(t);
    const [id] = await send(store, 'review', BOB, ALICE, ['wait, one more thing']);
    const run = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: false }), { AI_AGENT: agent });
    assert.equal(run.answer.decision, undefined, agent);
    assert.equal(run.answer.hookSpecificOutput.hookEventName, 'Stop');
    assert.match(run.answer.hookSpecificOutput.additionalContext, /wait, one more thing/);
    assert.match(run.answer.hookSpecificOutput.additionalContext, /before you finish/);
    assert.equal(statusOf(store, 'review', id!), 'delivered');
  }
});

test('Stop still blocks with the mail in a Claude Code older than 2.1.163, or one whose AI_AGENT names no version', async (t) => {
  for (const agent of ['claude-code_2-1-162_harness', 'claude-code_2-0-999_harness', 'claude-code', 'claude-code_x-y-z', 'codex_2-1-332']) {
    const { project, store } = await pair(t);
    await send(store, 'review', BOB, ALICE, ['wait, one more thing']);
    const run = await hook(project, claudeEvent('Stop', SID), { AI_AGENT: agent });
    assert.equal(run.answer.decision, 'block', agent);
    assert.match(run.answer.reason, /wait, one more thing/);
    assert.equal(run.answer.hookSpecificOutput, undefined);
  }
});

test('a Codex Stop blocks with the mail even when AI_AGENT (inherited from a Claude Code) names 2.1.163 or later', async (t) => {
  const { project, store } = await pair(t, 'codex');
  await send(store, 'review', BOB, ALICE, ['wait, one more thing']);
  const run = await hook(project, codexEvent('Stop', SID), CLAUDE_332);
  assert.equal(run.answer.decision, 'block');
  assert.match(run.answer.reason, /wait, one more thing/);
});

test('a continued Stop in a Claude Code that takes Stop context hands over only new mail, so it cannot loop', async (t) => {
  const { project, store } = await pair(t);
  await send(store, 'review', BOB, ALICE, ['round one']);
  assert.match(textOf((await hook(project, claudeEvent('Stop', SID), CLAUDE_332)).answer), /round one/);
  assert.deepEqual((await hook(project, claudeEvent('Stop', SID, { stop_hook_active: true }), CLAUDE_332)).answer, {});
  await send(store, 'review', BOB, ALICE, ['round two']);
  const fresh = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: true }), CLAUDE_332);
  assert.match(fresh.answer.hookSpecificOutput.additionalContext, /round two/);
  assert.doesNotMatch(fresh.answer.hookSpecificOutput.additionalContext, /round one/);
});

test('a message too large for the cap is announced, not drained; at a continued Stop the notice is not repeated', async (t) => {
  const { project, store } = await pair(t);
  const [id] = await send(store, 'review', BOB, ALICE, ['x'.repeat(12_000)]);
  const prompt = await hook(project, claudeEvent('UserPromptSubmit', SID));
  const text = textOf(prompt.answer);
  assert.match(text, /too large to show here/);
  assert.match(text, /opencomms_pull/);
  assert.doesNotMatch(text, /UNTRUSTED_PEER_MESSAGE/);
  assert.ok(text.length <= 10_000);
  const envelope = stateOf(store).messages[id!]!;
  assert.equal(envelope.delivery_status, 'pending');
  assert.equal(envelope.attempts, 0);
  const stop = await hook(project, claudeEvent('Stop', SID));
  assert.equal(stop.answer.decision, 'block');
  assert.match(stop.answer.reason, /too large/);
  assert.deepEqual((await hook(project, claudeEvent('Stop', SID, { stop_hook_active: true }))).answer, {});
  assert.equal(stateOf(store).messages[id!]!.delivery_status, 'pending');
});

test('the 10,000-character cap: whole messages only, a count of the rest, the rest stays pending in order', async (t) => {
  const { project, store } = await pair(t);
  const contents = Array.from({ length: 30 }, (_, i) => `message ${String(i).padStart(2, '0')} ${'y'.repeat(1000)}`);
  const ids = await send(store, 'review', BOB, ALICE, contents);
  const received: string[] = [];
  let rounds = 0;
  for (;;) {
    const run = await hook(project, claudeEvent('PostToolUse', SID));
    if (!run.answer.hookSpecificOutput) break;
    rounds += 1;
    const text = textOf(run.answer);
    assert.ok(text.length <= 10_000, `answer of ${text.length} characters`);
    const frames = parseFrames(text);
    assert.ok(frames.ok);
    received.push(...frames.frames.map((f) => f.content));
    const left = contents.length - received.length;
    if (left > 0) {
      assert.match(text, new RegExp(`${left} more messages? (is|are) waiting`));
      const state = stateOf(store);
      assert.equal(state.queues[ALICE]!.length, left);
      assert.ok(state.queues[ALICE]!.every((qid) => state.messages[qid]!.delivery_status === 'pending'));
    } else {
      assert.doesNotMatch(text, /more message/);
    }
    assert.ok(rounds < 10);
  }
  assert.ok(rounds >= 4, `30 KB of mail needs several answers, took ${rounds}`);
  assert.deepEqual(received, contents);
  for (const id of ids) assert.equal(statusOf(store, 'review', id), 'delivered');
});

test('mail from every channel the member is in is delivered, each labelled with its channel', async (t) => {
  const { project, store } = await pair(t);
  await channelWith(project, 'design', [
    { id: 'carol-1', role: 'designer', host: 'mcp' },
    { id: ALICE, role: 'author', host: 'claude-code', hostSessionId: SID },
  ]);
  await send(store, 'review', BOB, ALICE, ['from review']);
  await send(store, 'design', 'carol-1', ALICE, ['from design']);
  const text = textOf((await hook(project, claudeEvent('UserPromptSubmit', SID))).answer);
  const frames = parseFrames(text);
  assert.ok(frames.ok);
  const byContent = new Map(frames.frames.map((f) => [f.content, f.header]));
  assert.match(byContent.get('from review')!, /on channel "review"/);
  assert.match(byContent.get('from design')!, /on channel "design"/);
  // Bob's own mail is untouched by Alice's hook.
  await send(store, 'review', ALICE, BOB, ['to bob']);
  assert.deepEqual((await hook(project, claudeEvent('UserPromptSubmit', SID))).answer, {});
  assert.equal(stateOf(store).queues[BOB]!.length, 1);
});

test('mail of a paused channel waits and costs no lock', async (t) => {
  const { project, store } = await pair(t);
  const [id] = await send(store, 'review', BOB, ALICE, ['paused mail']);
  await edit(store, (state) => {
    state.channels.review!.paused = true;
    return { ok: true, message: 'paused' };
  });
  const before = readFileSync(statePathOf(store));
  assert.deepEqual((await hook(project, claudeEvent('UserPromptSubmit', SID))).answer, {});
  assert.deepEqual(readFileSync(statePathOf(store)), before);
  assert.equal(stateOf(store).messages[id!]!.delivery_status, 'pending');
});

test('Gemini CLI: BeforeAgent and AfterTool add context, AfterAgent denies with the mail, never twice', async (t) => {
  const { project, store } = await pair(t, 'gemini-cli');
  await send(store, 'review', BOB, ALICE, ['gemini one']);
  const before = await hook(project, geminiEvent('BeforeAgent', SID, { prompt: 'hi' }));
  assert.equal(before.answer.hookSpecificOutput.hookEventName, 'BeforeAgent');
  assert.match(before.answer.hookSpecificOutput.additionalContext, /gemini one/);
  await send(store, 'review', BOB, ALICE, ['gemini two']);
  const tool = await hook(project, geminiEvent('AfterTool', SID, { tool_name: 'read_file' }));
  assert.equal(tool.answer.hookSpecificOutput.hookEventName, 'AfterTool');
  await send(store, 'review', BOB, ALICE, ['gemini three']);
  const after = await hook(project, geminiEvent('AfterAgent', SID, { prompt_response: 'done', stop_hook_active: false }));
  assert.equal(after.answer.decision, 'deny');
  assert.match(after.answer.reason, /gemini three/);
  assert.match(after.answer.systemMessage, /^OpenComms: peer mail .*arrived as this turn ended.*Nothing failed\.$/, 'the user is told the warning is mail, not a failure');
  assert.deepEqual((await hook(project, geminiEvent('AfterAgent', SID, { stop_hook_active: true }))).answer, {});
});

test('Codex: the same event names and answers, recognised by turn_id', async (t) => {
  const { project, store } = await pair(t, 'codex');
  await send(store, 'review', BOB, ALICE, ['codex mail']);
  const prompt = await hook(project, codexEvent('UserPromptSubmit', SID, { prompt: 'go' }));
  assert.match(prompt.answer.hookSpecificOutput.additionalContext, /codex mail/);
  await send(store, 'review', BOB, ALICE, ['codex stop mail']);
  const stop = await hook(project, codexEvent('Stop', SID, { stop_hook_active: false }));
  assert.equal(stop.answer.decision, 'block');
  assert.match(stop.answer.reason, /codex stop mail/);
});

test('a Claude Code session does not read mail bound to a Codex session of the same id when the host is forced', async (t) => {
  const { project, store } = await pair(t, 'codex');
  await send(store, 'review', BOB, ALICE, ['for codex only']);
  const forced = await hook(project, claudeEvent('UserPromptSubmit', SID), { OPENCOMMS_HOST: 'claude-code' });
  assert.deepEqual(forced.answer, {});
  assert.equal(stateOf(store).queues[ALICE]!.length, 1);
});

test('a member id that is an Object.prototype name has no mail, rather than crashing the hook', () => {
  const state = emptyState();
  assert.deepEqual(deliverableMail(state, 'constructor', 0), []);
  assert.equal(needsDelivery(state, 'constructor', 0), false);
});

test('a Stop reminder of an open review request whose answer cannot be written is given again at the next Stop, then never again', async (t) => {
  const { project, store } = await pair(t);
  // Bob asks Alice for a review, and Alice pulls it: no mail waits, the request stays open.
  await edit(store, (state, ctx) => {
    const sent = sendMessage(state, { channel: 'review', session_id: BOB, to: ALICE, content: 'please review', type: 'review_request' }, ctx);
    assert.equal(sent.ok, true, JSON.stringify(sent));
    const owner = { pid: process.pid, host: processHostTag(), lease_until: ctx.now() + 60_000 };
    const pulled = pullMessages(state, ALICE, { channel: 'review', owner }, ctx);
    commitDelivery(state, ALICE, pulled.data!.message_ids as string[], 'pull', ctx.now(), owner);
    return { ok: true, message: 'asked and pulled' };
  });
  const written: string[] = [];
  const lost = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: false }), CLAUDE_332, {
    write: (text) => {
      written.push(text);
      throw new Error('EPIPE');
    },
  });
  assert.match(written.join(''), /review request\(s\) addressed to you are still open/, 'the reminder was in the answer that failed');
  assert.match(lost.warnings.join('\n'), /could not write its answer/);
  const again = await hook(project, claudeEvent('Stop', SID, { stop_hook_active: false }), CLAUDE_332);
  assert.match(JSON.stringify(again.answer), /review request\(s\) addressed to you are still open/, 'the unwritten reminder comes again');
  assert.deepEqual((await hook(project, claudeEvent('Stop', SID, { stop_hook_active: false }), CLAUDE_332)).answer, {}, 'once written, never again');
});
