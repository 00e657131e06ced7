// Every argument of every tool, given a value of the wrong type (or left
// out when required): a tool error naming the argument, never a coercion,
// and state.json keeps every byte. The table runs in-process against the
// catalog the server dispatches to; one test sends a wrong argument through
// a real server process, so the path over stdio is covered once.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { tempProject, type Json, type ServerProcess } from '../helpers/server';
import { callRaw, channelOf, stateBytes } from '../e2e/tools-support';
import { buildTools } from '../../src/tools/catalog';
import { ToolRegistry } from '../../src/tools/registry';
import { ToolServices } from '../../src/tools/services';

/** One member's tools, in this process: the registry a server built for OPENCOMMS_MEMBER_ID=memberId. */
function toolsOf(projectDir: string, memberId: string): ToolRegistry {
  const env: NodeJS.ProcessEnv = { OPENCOMMS_NO_SPAWN: '1', OPENCOMMS_MEMBER_ID: memberId };
  return new ToolRegistry(buildTools(new ToolServices({ projectDir, host: 'test', env, log: () => undefined })));
}

async function ok(registry: ToolRegistry, name: string, args: Json): Promise<Json> {
  const raw = await registry.call(name, args);
  assert.equal(raw.isError, false, `${name} ${JSON.stringify(args)}: ${JSON.stringify(raw.structuredContent)}`);
  return raw.structuredContent as Json;
}

/** Arguments each tool accepts, so that only the one argument under test is wrong. */
const VALID: Record<string, Json> = {
  opencomms_create: { channel: 'fresh', role: 'writer', role_prompt: 'write' },
  opencomms_join: { channel: 'c', role: 'tester', role_prompt: 'test' },
  opencomms_send: { channel: 'c', content: 'hello' },
  opencomms_inbox: { channel: 'c' },
  opencomms_pull: {},
  opencomms_status: {},
  opencomms_history: { channel: 'c' },
  opencomms_pause: { channel: 'c' },
  opencomms_resume: { channel: 'c' },
  opencomms_disconnect: { channel: 'c' },
  opencomms_update_role: { channel: 'c', role_prompt: 'new prompt' },
  opencomms_kick: { channel: 'c' },
  opencomms_timer: { channel: 'c', action: 'status' },
  opencomms_save_session: { channel: 'c' },
  opencomms_resume_session: { channel: 'c' },
  opencomms_delete_session: { channel: 'c', confirm: true },
  opencomms_archive: {},
  opencomms_reserve: { channel: 'c', paths: ['src/a.ts'] },
  opencomms_release: { channel: 'c' },
  opencomms_task: { action: 'list' },
};

/** Values of the wrong JSON type for a property of schema type `type`. */
function wrongValues(type: string): [string, unknown][] {
  const common: [string, unknown][] = [['an array', ['x']], ['null', null], ['an object', { value: 1 }]];
  switch (type) {
    case 'string': return [['a number', 42], ['a boolean', true], ...common];
    case 'integer': return [['a string', '5'], ['a fraction', 1.5], ['a boolean', true], ...common];
    case 'boolean': return [['a string', 'true'], ['a number', 1], ...common];
    case 'array': return [['a string', 'src/a.ts'], ['an array holding a number', [1]], ['null', null], ['an object', { value: 1 }]];
    default: throw new Error(`no wrong values for schema type ${type}`);
  }
}

async function setUp(t: TestContext): Promise<{ project: string; writer: ToolRegistry; tools: Json[] }> {
  const project = tempProject(t);
  const writer = toolsOf(project, 'writer-1');
  const reviewer = toolsOf(project, 'reviewer-1');
  await ok(writer, 'opencomms_create', { channel: 'c', role: 'writer', role_prompt: 'write' });
  await ok(reviewer, 'opencomms_join', { channel: 'c', role: 'reviewer', role_prompt: 'review' });
  await ok(reviewer, 'opencomms_send', { channel: 'c', content: 'some mail so the state is not trivial' });
  return { project, writer, tools: writer.list() as Json[] };
}

type Caller = ToolRegistry | ServerProcess;
const callOf = (caller: Caller, name: string, args: Json): Promise<Json> =>
  caller instanceof ToolRegistry ? caller.call(name, args) : callRaw(caller, name, args);

async function assertRefusedUntouched(project: string, caller: Caller, name: string, args: Json, argument: string): Promise<void> {
  const before = stateBytes(project);
  const raw = await callOf(caller, name, args);
  const shown = `${name} ${JSON.stringify(args)}`;
  assert.equal(raw.isError, true, `${shown} was accepted: ${JSON.stringify(raw.structuredContent)}`);
  assert.equal(raw.structuredContent.ok, false, shown);
  assert.equal(raw.structuredContent.data.reason, 'invalid_argument', shown);
  assert.equal(raw.structuredContent.data.argument, argument, shown);
  assert.ok(raw.structuredContent.message.includes(argument), `${shown}: the message does not name ${argument}`);
  assert.ok(before.equals(stateBytes(project)), `${shown} changed state.json`);
}

test('the argument table covers exactly the listed tools', async (t) => {
  const { tools } = await setUp(t);
  assert.deepEqual(tools.map((tool) => tool.name), Object.keys(VALID));
});

for (const name of Object.keys(VALID)) {
  test(`${name} refuses each argument of the wrong type as invalid_argument and leaves state.json byte-identical`, async (t) => {
    const { project, writer, tools } = await setUp(t);
    const schema = tools.find((tool) => tool.name === name)!.inputSchema;
    const properties = Object.entries(schema.properties as Record<string, { type: string }>);
    assert.ok(properties.length > 0 || name === 'opencomms_pull');
    for (const [argument, property] of properties) {
      for (const [, value] of wrongValues(property.type)) {
        await assertRefusedUntouched(project, writer, name, { ...VALID[name], [argument]: value }, argument);
      }
    }
  });

  test(`${name} refuses a missing required argument, or an unknown one, and leaves state.json byte-identical`, async (t) => {
    const { project, writer, tools } = await setUp(t);
    const schema = tools.find((tool) => tool.name === name)!.inputSchema;
    for (const argument of schema.required as string[]) {
      const args = { ...VALID[name] };
      delete args[argument];
      await assertRefusedUntouched(project, writer, name, args, argument);
    }
    await assertRefusedUntouched(project, writer, name, { ...VALID[name], surprise: 'x' }, 'surprise');
  });
}

test('the valid argument sets really are accepted, so each refusal above is about the one bad argument', async (t) => {
  const { project, writer } = await setUp(t);
  // Read-only and reversible tools only: their success proves the base arguments pass the guard.
  for (const name of ['opencomms_inbox', 'opencomms_pull', 'opencomms_status', 'opencomms_history', 'opencomms_archive',
    'opencomms_update_role', 'opencomms_timer', 'opencomms_pause', 'opencomms_resume', 'opencomms_send', 'opencomms_create']) {
    await ok(writer, name, VALID[name]);
  }
  for (const [name, reason] of [['opencomms_kick', 'no_target'], ['opencomms_resume_session', 'not_found']] as const) {
    const raw = await writer.call(name, VALID[name]! as Record<string, unknown>);
    assert.equal(raw.structuredContent.data?.reason, reason, name);
  }
  assert.ok(stateBytes(project).length > 0);
});

test('through a real server process, a wrong or missing argument is the same tool error and state.json keeps every byte', async (t) => {
  const project = tempProject(t);
  const [writer, reviewer] = await channelOf(t, project, 'c', ['writer', 'reviewer']);
  await callRaw(reviewer!, 'opencomms_send', { channel: 'c', content: 'some mail so the state is not trivial' });
  const tools: Json[] = (await writer!.request('tools/list')).result.tools;
  assert.deepEqual(tools.map((tool) => tool.name), Object.keys(VALID));
  await assertRefusedUntouched(project, writer!, 'opencomms_send', { channel: 'c', content: 42 }, 'content');
  await assertRefusedUntouched(project, writer!, 'opencomms_send', { channel: 'c' }, 'content');
  await assertRefusedUntouched(project, writer!, 'opencomms_reserve', { channel: 'c', paths: [1] }, 'paths');
});
