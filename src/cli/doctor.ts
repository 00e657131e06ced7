export interface DoctorOptions {
  projectDir: string;
  fix: boolean;
  json: boolean;
  version: string;
  write: (text: string) => void;
}

export function runDoctor(options: DoctorOptions): number {
  options.write('doctor is being built\n');
  return 1;
}
