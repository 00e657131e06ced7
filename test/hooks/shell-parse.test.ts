// The shell tokenizer behind the pre-call check: which paths a command plainly writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shellWrites } from '../../src/hooks/shell-parse';

const CASES: Array<[string, string[]]> = [
  ['echo x > a.ts', ['/p/a.ts']],
  ['echo x >> "my file.ts"', ['/p/my file.ts']],
  ["echo x >'a b'", ['/p/a b']],
  ['make 2> log.txt', ['/p/log.txt']],
  ['make &> out.txt && echo done', ['/p/out.txt']],
  ['make >& out.txt', ['/p/out.txt']],
  ['echo hi >&2', []],
  ['echo x | tee -a a.ts b.ts', ['/p/a.ts', '/p/b.ts']],
  ["sed -i 's/a/b/' a.ts", ['/p/a.ts']],
  ["sed -i.bak -e 's/a/b/' a.ts b.ts", ['/p/a.ts', '/p/b.ts']],
  ["sed --in-place 's/a/b/' a.ts", ['/p/a.ts']],
  ["sed -Ei 's/a/b/' a.ts", ['/p/a.ts']],
  ["sed 's/a/b/' a.ts", []],
  ['cp x a.ts', ['/p/a.ts', '/p/a.ts/x']],
  ['cp -r x y src', ['/p/src', '/p/src/x', '/p/src/y']],
  ['cp -t src a.ts', ['/p/src/a.ts']],
  ['mv a.ts b.ts', ['/p/b.ts', '/p/b.ts/a.ts', '/p/a.ts']],
  ['rm -rf a.ts src/b.ts', ['/p/a.ts', '/p/src/b.ts']],
  ['truncate -s 0 a.ts', ['/p/a.ts']],
  ['cd src && echo x > a.ts; rm b.ts', ['/p/src/a.ts', '/p/src/b.ts']],
  ['cat a.ts', []],
  ['wc -l < a.ts', []],
  ['echo "> a.ts"', []],
  ['echo $OUT > a.ts; echo x > "$F"', ['/p/a.ts']],
  ['rm $(ls)', []],
  ['dd if=x of=a.ts', ['/p/a.ts']],
  ['sudo rm /p/a.ts', ['/p/a.ts']],
  ["cat <<'EOF' > a.ts\nrm b.ts\nEOF\nls", ['/p/a.ts']],
  ['# rm a.ts', []],
  ['rm src/*.ts', ['/p/src/*.ts']],
  ['echo x > /dev/null', []],
];

for (const [command, expected] of CASES) {
  test(`the shell check reads \`${command.replace(/\n/g, '⏎')}\` as writing ${expected.length === 0 ? 'nothing' : expected.join(', ')}`, () => {
    assert.deepEqual(shellWrites(command, '/p'), expected);
  });
}
