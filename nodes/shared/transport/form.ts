/**
 * Node's global FormData as a type, for the transport modules where undici's FormData holds the name: nodes build
 * multipart bodies with the global one (they may not import undici), submit.ts copies it into undici's.
 */
export type NodeFormData = FormData;
