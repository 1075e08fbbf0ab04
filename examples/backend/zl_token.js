// zl_token.js - mints zerolag connect tokens in Node, byte for byte as the C
// library's zl_token_mint and zl_token_write (docs/TOKENS.md is the format).
'use strict';

const net = require('net');
const sodium = require('libsodium-wrappers');

const PROTOCOL_ID = 0x5a4c0002; // "ZL" and protocol version 2
const KEY_SIZE = 32;
const NONCE_SIZE = 24;
const TAG_SIZE = 16;
const ADDRESSES = 4; // ZL_TOKEN_ADDRESSES
const ADDRESS_SIZE = 19; // family, 16 address bytes, port
const USER_DATA = 256; // ZL_TOKEN_USER_DATA
const PRIVATE_SIZE = 8 + 4 + 1 + ADDRESSES * ADDRESS_SIZE + 2 * KEY_SIZE + USER_DATA; // 409
const SEALED_SIZE = PRIVATE_SIZE + TAG_SIZE; // 425
const WIRE_SIZE = 4 + 8 + 8 + NONCE_SIZE + SEALED_SIZE + 4 + 1 + ADDRESSES * ADDRESS_SIZE +
    2 * KEY_SIZE; // 614

// "ip:port" or "[ipv6]:port" into a 19-byte address.
function addressBytes(text) {
  const m = /^\[([^\]]+)\]:(\d+)$/.exec(text) || /^([^:]+):(\d+)$/.exec(text);
  const port = m ? Number(m[2]) : -1;
  if (!m || !net.isIP(m[1]) || port < 1 || port > 65535) {
    throw new Error(`not an ip:port address: ${text}`);
  }
  const out = Buffer.alloc(ADDRESS_SIZE);
  if (net.isIPv4(m[1])) {
    out[0] = 4;
    m[1].split('.').forEach((part, i) => { out[1 + i] = Number(part); });
  } else {
    out[0] = 6;
    // Expand "::" into the missing zero groups, then 8 big-endian groups.
    const [head, tail] = m[1].split('::');
    const h = head ? head.split(':') : [];
    const t = tail !== undefined && tail ? tail.split(':') : [];
    const groups = tail === undefined ? h : h.concat(Array(8 - h.length - t.length).fill('0'), t);
    if (groups.length !== 8) throw new Error(`IPv4-mapped or odd IPv6 not supported: ${text}`);
    groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), 1 + 2 * i));
  }
  out.writeUInt16LE(port, 17);
  return out;
}

// Every slot written, unused ones zero: one token, one encoding.
function addressBlock(addresses) {
  const block = Buffer.alloc(ADDRESSES * ADDRESS_SIZE);
  addresses.forEach((a, i) => addressBytes(a).copy(block, i * ADDRESS_SIZE));
  return block;
}

function bytesOf(value, size, name, fresh) {
  if (value === undefined) return fresh ? Buffer.from(sodium.randombytes_buf(size)) : Buffer.alloc(size);
  const b = Buffer.isBuffer(value) || value instanceof Uint8Array ? Buffer.from(value)
    : Buffer.from(String(value), 'hex');
  if (b.length !== size) throw new Error(`${name} must be ${size} bytes`);
  return b;
}

// Mints a token. grant: { key (32 bytes or 64 hex digits), addresses
// (1..4 "ip:port"), clientId (BigInt or number, default 1), timeoutS (5),
// seconds (30) or createS/expireS (Unix seconds), userData (up to 256
// bytes), and for tests only nonce, clientKey, serverKey (random
// otherwise) }. Returns the 614-byte public token as a Buffer.
function mintToken(grant) {
  const key = bytesOf(grant.key, KEY_SIZE, 'key', false);
  const addresses = grant.addresses || [];
  if (addresses.length < 1 || addresses.length > ADDRESSES) {
    throw new Error(`1..${ADDRESSES} server addresses`);
  }
  const createS = BigInt(grant.createS !== undefined ? grant.createS : Math.floor(Date.now() / 1000));
  const expireS = grant.expireS !== undefined ? BigInt(grant.expireS)
    : createS + BigInt(grant.seconds !== undefined ? grant.seconds : 30);
  if (expireS <= createS) throw new Error('the token must expire after it is created');
  const timeoutS = grant.timeoutS !== undefined ? grant.timeoutS : 5;
  const nonce = bytesOf(grant.nonce, NONCE_SIZE, 'nonce', true);
  const clientKey = bytesOf(grant.clientKey, KEY_SIZE, 'clientKey', true);
  const serverKey = bytesOf(grant.serverKey, KEY_SIZE, 'serverKey', true);
  const userData = Buffer.alloc(USER_DATA);
  if (grant.userData) {
    const u = Buffer.from(grant.userData);
    if (u.length > USER_DATA) throw new Error(`user data above ${USER_DATA} bytes`);
    u.copy(userData);
  }
  const block = addressBlock(addresses);

  const plain = Buffer.alloc(PRIVATE_SIZE);
  plain.writeBigUInt64LE(BigInt(grant.clientId !== undefined ? grant.clientId : 1), 0);
  plain.writeUInt32LE(timeoutS, 8);
  plain[12] = addresses.length;
  block.copy(plain, 13);
  clientKey.copy(plain, 13 + block.length);
  serverKey.copy(plain, 13 + block.length + KEY_SIZE);
  userData.copy(plain, 13 + block.length + 2 * KEY_SIZE);

  const aad = Buffer.alloc(12);
  aad.writeUInt32LE(PROTOCOL_ID, 0);
  aad.writeBigUInt64LE(expireS, 4);
  const sealed = Buffer.from(sodium.crypto_aead_xchacha20poly1305_ietf_encrypt(
    plain, aad, null, nonce, key));
  sodium.memzero(plain);

  const out = Buffer.alloc(WIRE_SIZE);
  let at = 0;
  out.writeUInt32LE(PROTOCOL_ID, at); at += 4;
  out.writeBigUInt64LE(createS, at); at += 8;
  out.writeBigUInt64LE(expireS, at); at += 8;
  at += nonce.copy(out, at);
  at += sealed.copy(out, at);
  out.writeUInt32LE(timeoutS, at); at += 4;
  out[at] = addresses.length; at += 1;
  at += block.copy(out, at);
  at += clientKey.copy(out, at);
  at += serverKey.copy(out, at);
  if (at !== WIRE_SIZE || sealed.length !== SEALED_SIZE) throw new Error('token layout');
  return out;
}

module.exports = { ready: sodium.ready, mintToken, WIRE_SIZE, PROTOCOL_ID };
