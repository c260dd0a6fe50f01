export { KeyRing, hashKey, generateKey, type Principal, type KeyRecord, type Scope } from './key-ring.js';
export { authenticate, presentedKey, refuseIfRevokedSince } from './authenticate.js';
