/** A git object id written out in full (SHA-1 or SHA-256): a name no ref or later commit can move. */
const FULL_OBJECT_ID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export const isFullObjectId = (value: string): boolean => FULL_OBJECT_ID.test(value);
