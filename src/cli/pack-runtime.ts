// Compiles a CommonJS text embedded in the bundle, once, as a module of its
// own. Its imports of modules that the hot half already holds arrive as
// `require("oc:<path>")` and get the hot half's very instances, so no module
// ever exists twice; anything else (node builtins) goes to the real require.
import { dirname } from 'node:path';

export type HotModules = Readonly<Record<string, unknown>>;

/** The prefix the build gives every shared module id. */
export const HOT_PREFIX = 'oc:';

/** The text of a pack the build stored deflate-compressed, as base64. zlib loads here, on first use. */
export function inflatePack(base64: string): string {
  const { inflateRawSync } = require('node:zlib') as typeof import('node:zlib');
  return inflateRawSync(Buffer.from(base64, 'base64')).toString('utf8');
}

/**
 * Runs `source` as a CommonJS module body and returns its exports.
 * `filename` names it in stack traces and in coverage; no file need exist there.
 */
export function evaluatePack(source: string, filename: string, hot: HotModules, realRequire: (id: string) => unknown): unknown {
  // Required here, not at the top: a start-up that needs no pack never loads node:vm.
  const { compileFunction } = require('node:vm') as typeof import('node:vm');
  const body = compileFunction(source, ['exports', 'require', 'module', '__filename', '__dirname'], { filename });
  const module = { exports: {} as unknown };
  const packRequire = (id: string): unknown => {
    if (!id.startsWith(HOT_PREFIX)) return realRequire(id);
    if (!Object.prototype.hasOwnProperty.call(hot, id)) {
      throw new Error(`the embedded pack asks for ${id}, which this bundle does not carry; rebuild it with npm run build`);
    }
    return hot[id];
  };
  body.call(module.exports, module.exports, packRequire, module, filename, dirname(filename));
  return module.exports;
}
