// `opencomms resume CHANNEL`: a person lifts a pause, the loop guard's included (see pause.ts).
import { runPersonPause, type PauseOptions } from './pause';

export function runResume(options: PauseOptions): Promise<number> {
  return runPersonPause(options, false);
}
