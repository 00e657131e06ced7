export interface StatusOptions {
  projectDir: string;
  json: boolean;
  env: NodeJS.ProcessEnv;
}

export function runStatus(_options: StatusOptions): number {
  return 1;
}
