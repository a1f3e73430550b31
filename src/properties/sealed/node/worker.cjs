'use strict';
// The sealed worker: the one process of a sealed run where production code
// loads and runs. It serves the property process over fd 3 (a socket pair
// it inherited) and ends when that closes.
const net = require('node:net');
const { pathToFileURL } = require('node:url');
const { Peer } = require('./peer.cjs');

const socket = new net.Socket({ fd: 3, readable: true, writable: true });
const peer = new Peer({
  fd: 3,
  handle: socket._handle,
  socket,
  side: 'worker',
  serve(m) {
    // layers: project files
    if (m.op === 'require') return require(m.f);
    // layers: project files
    if (m.op === 'import') return import(pathToFileURL(m.f).href);
    throw new Error(`unknown request ${m.op}`);
  },
  // The property process is gone: nothing is left to answer.
  onEnd: () => process.exit(0),
});
void peer;
