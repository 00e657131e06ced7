// `opencomms watch`: the agent's wake-up line and the people's live view.
export { startMailWatch } from './mail-watch';
export type { MailWatch, MailWatchOptions } from './mail-watch';
export { startPeopleWatch } from './people-watch';
export type { PeopleOutput, PeopleWatch, PeopleWatchOptions } from './people-watch';
export { diffViews } from './events';
export type { WatchEvent, ChannelEvent, MemberEvent, MailEvent, ErrorEvent, PersonActionEvent } from './events';
export { takeView, emptyView } from './view';
export type { WatchView } from './view';
export { jsonLine, plainLine, describeEvent, printable, printableBlock, terminalSafeJson } from './format';
export type { WatchStart } from './format';
export { renderScreen, selectableItems, mailForPerson, pauseNote, HIDE_CURSOR, SHOW_CURSOR, CLEAR_SCREEN } from './screen';
export type { WatchItem } from './screen';
export { textPanel, wrapToColumns, TEXT_BAR } from './text-panel';
