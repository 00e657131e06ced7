// Fails when the committed dist/ differs from the bundle that was just built.
// Users curl dist/opencomms.js straight from the repository, so it must match src/.
import { execFileSync } from 'node:child_process';

let inRepo = true;
try {
  execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { stdio: 'ignore' });
} catch {
  inRepo = false;
}
if (!inRepo) {
  console.log('check-dist: not a git checkout, skipped');
  process.exit(0);
}
const status = execFileSync('git', ['status', '--porcelain', '--', 'dist'], { encoding: 'utf8' });
if (status.trim() !== '') {
  console.error('check-dist: dist/ differs from the committed bundle. Run `npm run build` and commit dist/.');
  console.error(status);
  process.exit(1);
}
console.log('check-dist: committed dist/ matches a fresh build');
