// A whole review conversation between two agents, each driving its own
// server through the official MCP SDK client.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { DIST, tempProject, type Json } from '../helpers/server';
import { parseFrames } from '../../src/engine';
import { memberEnv } from './tools-support';

async function connect(t: TestContext, project: string, memberId: string): Promise<Client> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, ...memberEnv(memberId) })) {
    if (value !== undefined) env[key] = value;
  }
  const transport = new StdioClientTransport({ command: process.execPath, args: [DIST, '--project', project], env, stderr: 'pipe' });
  const client = new Client({ name: `agent-${memberId}`, version: '1.0.0' });
  await client.connect(transport);
  t.after(() => client.close());
  return client;
}

async function call(client: Client, name: string, args: Json): Promise<Json> {
  const result = await client.callTool({ name, arguments: args });
  const structured = result.structuredContent as Json;
  assert.equal(result.isError, false, `${name}: ${JSON.stringify(structured)}`);
  assert.equal(structured.ok, true);
  return structured;
}

function onlyFrame(framed: string): { header: string; content: string } {
  const parsed = parseFrames(framed);
  assert.ok(parsed.ok);
  assert.equal(parsed.frames.length, 1);
  return parsed.frames[0]!;
}

test('two SDK clients hold a review conversation: request, pull, response with reply_to, pull, history', async (t) => {
  const project = tempProject(t);
  const writer = await connect(t, project, 'sess_sdk_writer');
  const reviewer = await connect(t, project, 'sess_sdk_reviewer');

  await call(writer, 'opencomms_create', { channel: 'pr-42', role: 'writer', role_prompt: 'Write the patch.' });
  await call(reviewer, 'opencomms_join', { channel: 'pr-42', role: 'reviewer', role_prompt: 'Review the patch.' });

  const request = await call(writer, 'opencomms_send', {
    channel: 'pr-42', type: 'review_request', content: 'Please review the retry loop in fetch.ts.',
  });
  const requestId: string = request.data.message_ids[0];

  const inbound = await call(reviewer, 'opencomms_pull', { channel: 'pr-42' });
  assert.deepEqual(inbound.data.message_ids, [requestId]);
  const asked = onlyFrame(inbound.data.messages[0].framed);
  assert.equal(asked.content, 'Please review the retry loop in fetch.ts.');
  assert.match(asked.header, /from writer \(sess_sdk_writer\).*type review_request.*hop 0/);

  const response = await call(reviewer, 'opencomms_send', {
    channel: 'pr-42', type: 'review_response', reply_to: requestId, content: 'Looks good; cap the retries at 5.',
  });
  const responseId: string = response.data.message_ids[0];

  const answer = await call(writer, 'opencomms_pull', {});
  assert.deepEqual(answer.data.message_ids, [responseId]);
  const answered = onlyFrame(answer.data.messages[0].framed);
  assert.equal(answered.content, 'Looks good; cap the retries at 5.');
  assert.match(answered.header, new RegExp(`from reviewer \\(sess_sdk_reviewer\\).*type review_response.*reply_to ${requestId}, hop 1\\]`));

  const history = await call(writer, 'opencomms_history', { channel: 'pr-42' });
  const byId = new Map<string, Json>(history.data.messages.map((m: Json) => [m.message_id, m]));
  assert.deepEqual([...byId.keys()], [responseId, requestId]);
  assert.equal(byId.get(requestId)!.message_type, 'review_request');
  assert.equal(byId.get(requestId)!.delivery_status, 'delivered');
  assert.equal(byId.get(responseId)!.message_type, 'review_response');
  assert.equal(byId.get(responseId)!.reply_to, requestId);
  assert.equal(byId.get(responseId)!.hop_count, 1);
  assert.equal(byId.get(responseId)!.delivery_status, 'delivered');
});
