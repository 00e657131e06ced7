declare const __OPENCOMMS_VERSION__: string;
process.stdout.write(`${__OPENCOMMS_VERSION__}\n`);
