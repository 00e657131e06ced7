/** The experimental capability a server declares when it sends doorbell notifications (Claude Code channels). */
export const CHANNEL_CAPABILITY = 'claude/channel';
