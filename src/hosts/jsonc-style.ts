// How a JSONC file writes its JSON (line ends, indentation, spacing, one-line
// lists), learned from the file, and values rendered in that style.
import type { JsonObject } from './jsonc';
import type { Container, Node } from './jsonc-spans';

/** How the file writes JSON, learned from the file itself. */
export interface Style {
  nl: string;
  /** One level of indentation: two or four spaces, a tab. */
  unit: string;
  /** Between a key and its value: ": " or ":". */
  colon: string;
  /** Between the items of a one-line object or array: ", " or ",". */
  comma: string;
  /** Whether a list of plain values goes on one line (`["a", "b"]`), as the file does. */
  isScalarListInline: boolean;
}

function lineStartOf(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

export function lineIndent(text: string, at: number): string {
  return /^[ \t]*/.exec(text.slice(lineStartOf(text, at), at))![0];
}

function isContainerValue(value: unknown): value is JsonObject | unknown[] {
  return typeof value === 'object' && value !== null;
}

export function learnStyle(blanked: string, root: Container): Style {
  const nl = blanked.includes('\r\n') ? '\r\n' : '\n';
  let unit: string | undefined;
  let colonSpaced = 0;
  let colonTight = 0;
  let commaSpaced = 0;
  let commaTight = 0;
  let inlineLists = 0;
  let splitLists = 0;
  const visit = (node: Node): void => {
    if (node.kind === 'scalar') return;
    const first = node.items[0];
    const isSplit = first !== undefined && blanked.slice(node.start, first.start).includes('\n');
    if (isSplit && unit === undefined) {
      const outer = lineIndent(blanked, node.start);
      const inner = lineIndent(blanked, first.start);
      if (inner.startsWith(outer) && inner.length > outer.length) unit = inner.slice(outer.length);
    }
    if (node.kind === 'array' && node.items.length > 0 && node.items.every((item) => item.node.kind === 'scalar')) {
      if (isSplit) splitLists++;
      else inlineLists++;
    }
    node.items.forEach((item, index) => {
      if (item.key !== undefined) {
        const between = blanked.slice(item.start, item.node.start);
        if (/:[ \t]/.test(between)) colonSpaced++;
        else colonTight++;
      }
      const next = node.items[index + 1];
      if (next && !isSplit) {
        if (/,[ \t]/.test(blanked.slice(item.node.end, next.start))) commaSpaced++;
        else commaTight++;
      }
      visit(item.node);
    });
  };
  visit(root);
  const colon = colonTight > colonSpaced ? ':' : ': ';
  const comma = commaSpaced + commaTight === 0 ? (colon === ':' ? ',' : ', ') : commaTight > commaSpaced ? ',' : ', ';
  return { nl, unit: unit ?? '  ', colon, comma, isScalarListInline: inlineLists > splitLists };
}

/** `value` as the file would write it: on one line, or spread over lines below `indent`. */
export function renderValue(value: unknown, style: Style, indent: string, isInline: boolean): string {
  if (!isContainerValue(value)) return JSON.stringify(value);
  const entries: [string | undefined, unknown][] = Array.isArray(value) ? value.map((v) => [undefined, v]) : Object.entries(value);
  const [open, close] = Array.isArray(value) ? ['[', ']'] : ['{', '}'];
  if (entries.length === 0) return open + close;
  const keyed = (key: string | undefined, text: string): string => (key === undefined ? text : `${JSON.stringify(key)}${style.colon}${text}`);
  const isScalarList = Array.isArray(value) && value.every((v) => !isContainerValue(v));
  if (isInline || (isScalarList && style.isScalarListInline)) {
    return open + entries.map(([k, v]) => keyed(k, renderValue(v, style, indent, true))).join(style.comma) + close;
  }
  const inner = indent + style.unit;
  const lines = entries.map(([k, v]) => inner + keyed(k, renderValue(v, style, inner, false)));
  return `${open}${style.nl}${lines.join(`,${style.nl}`)}${style.nl}${indent}${close}`;
}
