#!/usr/bin/env node
// test_vector.js - mints the token of docs/PROTOCOL.md's token match with its
// fixed inputs and compares it with that document's hex, byte for byte.
'use strict';

const fs = require('fs');
const path = require('path');
const { ready, mintToken } = require('./zl_token');

const range = (from, n) => Buffer.from(Array.from({ length: n }, (_, i) => from + i));

ready.then(() => {
  const doc = fs.readFileSync(path.join(__dirname, '../../docs/PROTOCOL.md'), 'utf8');
  const block = /```hex example=token\n([\s\S]*?)```/.exec(doc);
  if (!block) throw new Error('no token example in docs/PROTOCOL.md');
  const expected = Buffer.from(block[1].split('\n')
    .map((line) => line.slice(6).replace(/ /g, '')).join(''), 'hex');
  const token = mintToken({
    key: range(0x80, 32),
    nonce: range(0x20, 24),
    clientKey: range(0x40, 32),
    serverKey: range(0x60, 32),
    addresses: ['192.0.2.1:27015'],
    clientId: 0xc0ffeen,
    timeoutS: 10,
    createS: 1700000000,
    expireS: 1700000030,
    userData: 'player=ada',
  });
  const same = token.equals(expected);
  console.log(`token vector: ${token.length} bytes minted, ${expected.length} in the document: ` +
    (same ? 'identical' : 'DIFFERENT'));
  console.log(`${same ? 1 : 0} passed, ${same ? 0 : 1} failed`);
  process.exit(same ? 0 : 1);
}).catch((e) => {
  console.log(`test_vector.js: ${e.message}\n0 passed, 1 failed`);
  process.exit(1);
});
