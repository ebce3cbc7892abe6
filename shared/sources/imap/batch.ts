/**
 * How many messages one UID FETCH reads ahead, and how many decided items are moved
 * together: a batch costs a handful of round trips (FETCH, MOVE per folder, APPEND).
 */
export const IMAP_BATCH = 100;
