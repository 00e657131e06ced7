// History search benchmark (a report, not a test): opencomms_history with a
// query over 2000 and 20,000 records (the channel's log plus the saved
// archives it was resumed from), in process, against the same page read
// without a query as the anchor. p50 of repeated searches for a rare word
// (the scan reads everything) and a common one (it stops at the page).
//   npm run build && npx tsc -p tsconfig.test.json && node bench/search.mjs
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
let engine;
try {
  engine = require(join(root, 'build/src/engine/index.js'));
} catch {
  console.error('bench/search.mjs needs the compiled engine: run `npx tsc -p tsconfig.test.json` first.');
  process.exit(1);
}
const REPS = Math.max(15, Number(process.env.BENCH_REPS ?? 41) || 41);

function context(records) {
  let n = 0;
  return {
    now: () => 2_000_000_000_000,
    newId: (prefix) => `${prefix}${(++n).toString(16).padStart(32, '0')}`,
    nonce: () => (++n).toString(36),
    hash32: (text) => text.length.toString(16).padStart(32, '0'),
    history: { find: () => undefined, list: (id) => records.filter((r) => r.channel_id === id) },
  };
}

function recordsFor(channelId, count, offset) {
  const words = ['parser', 'lexer', 'review', 'tests', 'build', 'docs', 'fix', 'plan'];
  return Array.from({ length: count }, (_, i) => ({
    message_id: `ocm_${(offset + i).toString(16).padStart(32, '0')}`, channel_id: channelId, sender_session_id: 'a', sender_role: 'writer',
    recipient_session_id: 'b', recipient_role: 'reader', timestamp: 1_000_000 + offset + i, message_type: 'manual',
    content: `${words[i % words.length]} note ${i} ${i % 997 === 0 ? 'needle' : ''}`.padEnd(400, '.'), reply_to: null, root_message_id: null,
    hop_count: 0, correlation_id: 'cor_x', delivery_status: 'delivered', delivered_at: 1, attempts: 1, delivery_method: 'pull', delivered_to: ['b'],
  }));
}

const p50 = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
console.log(`history search, in process; node ${process.version}; p50 of ${REPS} runs`);
for (const total of [2000, 20_000]) {
  const ctx0 = context([]);
  const state = engine.emptyState();
  engine.createChannel(state, { channel: 'dev', role: 'writer', role_prompt: 'x', session_id: 'a', project_id: 'p', worktree: '/w' }, ctx0);
  engine.joinChannel(state, { channel: 'dev', role: 'reader', role_prompt: 'x', session_id: 'b', project_id: 'p', worktree: '/w' }, ctx0);
  const id = state.channels.dev.id;
  const live = recordsFor(id, Math.min(total, 2000), total);
  const archived = recordsFor('chn_old', Math.max(0, total - 2000), 0);
  const ctx = context(live);
  const time = (input) => {
    const ms = [];
    for (let i = 0; i < REPS; i += 1) {
      const t0 = performance.now();
      const result = engine.history(state, { channel: 'dev', session_id: 'b', limit: 20, archived, ...input }, ctx);
      ms.push(performance.now() - t0);
      if (!result.ok) throw new Error(result.message);
    }
    return p50(ms);
  };
  const plain = time({});
  const rare = time({ query: 'needle' });
  const common = time({ query: 'parser note' });
  console.log(`${total} records (${live.length} in the log, ${archived.length} in archives)`);
  console.log(`  page without query  p50 ${plain.toFixed(2)} ms`);
  console.log(`  rare word (full scan) p50 ${rare.toFixed(2)} ms  (${(rare / plain).toFixed(1)}× the plain page)`);
  console.log(`  common words (stops at the page) p50 ${common.toFixed(2)} ms  (${(common / plain).toFixed(1)}×)`);
}
