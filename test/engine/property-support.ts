// Re-exports for the property test, plus two internals it checks against.
export * from '../../src/engine/index';
export { compareSendOrder as compareOrderForTest, isFinished as isFinishedForTest } from '../../src/engine/envelopes';
