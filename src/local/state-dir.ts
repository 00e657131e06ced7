/** Name of the state directory inside a project. */
export const STATE_DIR_NAME = '.opencomms';
