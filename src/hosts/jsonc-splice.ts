// Writing JSONC: a changed document is spliced back into the original text,
// value by value, so everything outside the values that changed keeps its
// bytes: comments, indentation (2 or 4 spaces, tabs), line endings, one-line
// arrays and objects. What is added is written in the file's own style, and an
// addition followed by its removal gives the original text back. The result is
// checked to mean exactly the intended document, or the edit is refused.
import { blankComments, blankJsonc, type JsonObject } from './jsonc';
import { isObject, planArray, planObject, sameJson } from './jsonc-plan';
import { SpanParser, type Container, type Item, type Node } from './jsonc-spans';
import { learnStyle, lineIndent, renderValue, type Style } from './jsonc-style';

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Everything a splice reads and writes. */
interface Splice {
  /** Comments and trailing commas blanked: what the spans were read from. */
  blanked: string;
  /** Only comments blanked: where the commas really are. */
  commas: string;
  original: string;
  style: Style;
  edits: Edit[];
}

function isMultiline(splice: Splice, node: Container, isParentMultiline: boolean): boolean {
  if (node.items.length === 0) return splice.blanked.slice(node.start, node.end).includes('\n') || isParentMultiline;
  return splice.blanked.slice(node.start, node.items[0].start).includes('\n');
}

/** The offset of the comma that follows an item's value, or -1. */
function commaAfter(splice: Splice, item: Item): number {
  const rest = /^\s*,/.exec(splice.commas.slice(item.node.end));
  return rest ? item.node.end + rest[0].length - 1 : -1;
}

/**
 * The end of an item's line when nothing but its comma and comments follow it
 * there (a comment after an item belongs to that item), else undefined.
 */
function lineTail(splice: Splice, item: Item): number | undefined {
  const rest = /^[ \t]*(?:,[ \t]*)?(?=\r?\n|$)/.exec(splice.commas.slice(item.node.end));
  if (!rest) return undefined;
  const end = item.node.end + rest[0].length;
  // A block comment that goes on past the line end: its line end is not ours to use.
  return /\/\*(?![\s\S]*\*\/)/.test(splice.original.slice(item.node.end, end)) ? undefined : end;
}

/**
 * `text` (JSON or JSONC meaning `before`) rewritten to mean `after`, keeping
 * every byte outside the values that changed. Returns undefined when the
 * text cannot be followed or the result would not mean exactly `after`.
 */
export function spliceJsonc(text: string, before: JsonObject, after: JsonObject): string | undefined {
  const blanked = blankJsonc(text);
  let root: Node;
  try {
    const parser = new SpanParser(blanked);
    root = parser.value();
    parser.skip();
    if (parser.pos !== blanked.length) return undefined;
  } catch {
    return undefined;
  }
  if (root.kind !== 'object') return undefined;
  const splice: Splice = { blanked, commas: blankComments(text), original: text, style: learnStyle(blanked, root), edits: [] };
  try {
    spliceContainer(splice, root, before, after, true); // an empty document opens onto lines of its own
  } catch {
    return undefined; // `before` does not describe `text`
  }
  let out = text;
  // From the end backwards; of two insertions at one offset the later-planned
  // is made first, so the earlier-planned text ends up in front of it.
  const order = splice.edits.map((edit, index) => ({ edit, index }));
  order.sort((x, y) => y.edit.start - x.edit.start || y.edit.end - x.edit.end || y.index - x.index);
  for (const { edit } of order) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  try {
    return sameJson(JSON.parse(blankJsonc(out)), after) ? out : undefined;
  } catch {
    return undefined;
  }
}

/** Writes `value` anew in place of `node`, in the layout the old value had. */
function replaceValue(splice: Splice, item: Item, value: unknown): void {
  const { node } = item;
  const isInline = !splice.blanked.slice(node.start, node.end).includes('\n') && node.kind !== 'scalar' && (node.items.length > 0);
  splice.edits.push({ start: node.start, end: node.end, text: renderValue(value, splice.style, lineIndent(splice.blanked, item.start), isInline) });
}

function spliceValue(splice: Splice, item: Item, theirs: unknown, ours: unknown, isParentMultiline: boolean): void {
  const { node } = item;
  const isSameKind = node.kind === 'object' ? isObject(theirs) && isObject(ours)
    : node.kind === 'array' ? Array.isArray(theirs) && Array.isArray(ours) : false;
  if (isSameKind) spliceContainer(splice, node as Container, theirs as JsonObject | unknown[], ours as JsonObject | unknown[], isParentMultiline);
  else replaceValue(splice, item, ours);
}

function spliceContainer(splice: Splice, node: Container, before: JsonObject | unknown[], after: JsonObject | unknown[], isParentMultiline: boolean): void {
  const isSplit = isMultiline(splice, node, isParentMultiline);
  const plan = node.kind === 'object' ? planObject(node, before as JsonObject, after as JsonObject) : planArray(node, before as unknown[], after as unknown[]);
  if (!plan) {
    // Items both come and go, or a key repeats: write this value anew rather than stitch around them.
    replaceValue(splice, { start: node.start, node }, after);
    return;
  }
  for (const [item, theirs, ours] of plan.changed) spliceValue(splice, item, theirs, ours, isSplit);
  if (plan.removed.size > 0) removeItems(splice, node, plan.removed);
  if (plan.added.length > 0) addItems(splice, node, plan.added, isSplit);
}

// An item kept before others is taken out with everything up to the next
// item; items after the last one kept go with what separates them from it,
// and its comma goes too unless the file ends lists with a comma.
function removeItems(splice: Splice, node: Container, removed: ReadonlySet<Item>): void {
  const { items } = node;
  const kept = items.filter((item) => !removed.has(item));
  const last = items[items.length - 1];
  if (kept.length === 0) {
    const end = lineTail(splice, last) ?? (commaAfter(splice, last) >= 0 ? commaAfter(splice, last) + 1 : last.node.end);
    const leftInside = splice.original.slice(node.start + 1, items[0].start) + splice.original.slice(end, node.end - 1);
    if (leftInside.trim() === '') splice.edits.push({ start: node.start + 1, end: node.end - 1, text: '' });
    else splice.edits.push({ start: items[0].start, end, text: '' });
    return;
  }
  const lastKeptIndex = items.lastIndexOf(kept[kept.length - 1]);
  items.forEach((item, index) => {
    if (index < lastKeptIndex && removed.has(item)) splice.edits.push({ start: item.start, end: items[index + 1].start, text: '' });
  });
  if (lastKeptIndex === items.length - 1) return;
  const lastKept = items[lastKeptIndex];
  const firstGone = items[lastKeptIndex + 1];
  const keptComma = commaAfter(splice, lastKept);
  const isSplit = splice.blanked.slice(lastKept.node.end, firstGone.start).includes('\n');
  const lastComma = commaAfter(splice, last);
  const keptTail = lineTail(splice, lastKept);
  const lastTail = lineTail(splice, last);
  // When the closing bracket shares the last line, it moves up to the line
  // kept, unless a comment ends that line (the bracket would be commented out).
  const isCommentAfterKept = keptTail !== undefined && splice.original.slice(lastKept.node.end, keptTail).includes('/');
  const from = !isSplit ? lastKept.node.end
    : lastTail === undefined && isCommentAfterKept ? firstGone.start : (keptTail ?? keptComma + 1);
  const to = isSplit ? (lastTail ?? (lastComma >= 0 ? lastComma + 1 : last.node.end)) : last.node.end;
  splice.edits.push({ start: from, end: to, text: '' });
  if (isSplit && lastComma < 0 && keptComma >= 0) splice.edits.push({ start: keptComma, end: keptComma + 1, text: '' });
}

// New items go after the last one, on lines of their own in a spread-out
// value (after the comment that ends the last line), or on the same line in
// a one-line value; in the file's indentation either way.
function addItems(splice: Splice, node: Container, added: readonly [string | undefined, unknown][], isSplit: boolean): void {
  const { style, blanked } = splice;
  const keyed = (key: string | undefined, text: string): string => (key === undefined ? text : `${JSON.stringify(key)}${style.colon}${text}`);
  const last = node.items[node.items.length - 1];
  const outer = lineIndent(blanked, node.start);
  const indent = last ? lineIndent(blanked, node.items[0].start) : `${outer}${style.unit}`;
  if (!isSplit) {
    const rendered = added.map(([k, v]) => keyed(k, renderValue(v, style, outer, true)));
    if (!last) {
      splice.edits.push({ start: node.start + 1, end: node.start + 1, text: rendered.join(style.comma) });
      return;
    }
    const lastComma = commaAfter(splice, last);
    if (lastComma >= 0) splice.edits.push({ start: lastComma + 1, end: lastComma + 1, text: `${style.comma.slice(1)}${rendered.join(style.comma)},` });
    else splice.edits.push({ start: last.node.end, end: last.node.end, text: `${style.comma}${rendered.join(style.comma)}` });
    return;
  }
  const lines = added.map(([k, v]) => indent + keyed(k, renderValue(v, style, indent, false)));
  if (!last) {
    const inside = splice.original.slice(node.start + 1, node.end - 1);
    if (inside.trim() === '') {
      splice.edits.push({ start: node.start + 1, end: node.end - 1, text: `${style.nl}${lines.join(`,${style.nl}`)}${style.nl}${outer}` });
    } else {
      // Only comments inside: keep them, after ours.
      splice.edits.push({ start: node.start + 1, end: node.start + 1, text: `${style.nl}${lines.join(`,${style.nl}`)}` });
    }
    return;
  }
  const comma = commaAfter(splice, last);
  const at = lineTail(splice, last) ?? (comma >= 0 ? comma + 1 : last.node.end);
  const isTrailingComma = comma >= 0;
  if (!isTrailingComma) splice.edits.push({ start: last.node.end, end: last.node.end, text: ',' });
  splice.edits.push({ start: at, end: at, text: `${style.nl}${lines.join(`,${style.nl}`)}${isTrailingComma ? ',' : ''}` });
}
