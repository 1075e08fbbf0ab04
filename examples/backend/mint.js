#!/usr/bin/env node
// mint.js - the Node backend's minting step as a command, as the C program
// zl_token: prints one connect token as hex for one player and one match.
'use strict';

const { ready, mintToken } = require('./zl_token');

function usage() {
  process.stderr.write(
    'usage: mint.js KEY SERVER[,SERVER...] [CLIENT_ID [SECONDS [TIMEOUT [CREATE_S]]]]\n' +
    '  KEY        the 32-byte private key the servers were given, as 64 hex digits\n' +
    '  SERVER     an address the token is good for (ip:port), at most 4\n' +
    '  CLIENT_ID  the player\'s id (1)   SECONDS  how long it is valid (30)\n' +
    '  TIMEOUT    seconds of silence that end the connection (5)\n' +
    '  CREATE_S   Unix time it is minted at (now)\n');
  process.exit(2);
}

const args = process.argv.slice(2);
if (args.length < 2 || args.length > 6 || !/^[0-9a-fA-F]{64}$/.test(args[0])) usage();
ready.then(() => {
  const createS = args[5] !== undefined ? Number(args[5]) : Math.floor(Date.now() / 1000);
  const token = mintToken({
    key: args[0],
    addresses: args[1].split(','),
    clientId: args[2] !== undefined ? BigInt(args[2]) : 1n,
    seconds: args[3] !== undefined ? Number(args[3]) : 30,
    timeoutS: args[4] !== undefined ? Number(args[4]) : 5,
    createS,
  });
  process.stdout.write(`${token.toString('hex')}\n`);
}).catch((e) => {
  process.stderr.write(`mint.js: ${e.message}\n`);
  process.exit(1);
});
