// One gRPC call case from a client that is not Java: `node client.js HOST:PORT CASE`.
// Prints what it saw as key=value lines (binary values base64) for the Java test to judge, and exits
// non-zero on a failure it did not expect.
'use strict';

const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const definition = protoLoader.loadSync(path.join(__dirname, 'interop.proto'), {
  keepCase: true,
  longs: String,
  defaults: true,
});
const NodeInterop = grpc.loadPackageDefinition(definition).tether.testing.node.NodeInterop;

const [target, which] = process.argv.slice(2);
const client = new NodeInterop(target, grpc.credentials.createInsecure());

function deadline() {
  return { deadline: Date.now() + 20000 };
}

function print(key, value) {
  process.stdout.write(`${key}=${value}\n`);
}

function printStatus(err) {
  print('code', err.code);
  print('details', Buffer.from(err.details, 'utf8').toString('base64'));
}

const cases = {
  unary(done) {
    const request = Buffer.alloc(4096);
    for (let i = 0; i < request.length; i++) request[i] = (i * 31) & 0xff;
    const metadata = new grpc.Metadata();
    metadata.set('x-grpc-test-echo-initial', 'from node');
    metadata.set('x-grpc-test-echo-trailing-bin', Buffer.from([0xab, 0xab, 0xab]));
    const call = client.UnaryCall({ value: request }, metadata, deadline(), (err, reply) => {
      if (err) return done(err);
      print('equal', Buffer.compare(Buffer.from(reply.value), request) === 0);
      print('size', reply.value.length);
    });
    call.on('metadata', (m) => print('initial', m.get('x-grpc-test-echo-initial')));
    call.on('status', (s) => {
      const trailing = s.metadata.get('x-grpc-test-echo-trailing-bin')[0];
      print('trailing', trailing ? Buffer.from(trailing).toString('base64') : '');
      done();
    });
  },

  serverStream(done) {
    const sizes = [];
    const call = client.StreamingOutputCall({ value: '31415,9,2653,58979' }, deadline());
    call.on('data', (m) => sizes.push(m.value.length));
    call.on('error', done);
    call.on('end', () => {
      print('sizes', sizes.join(','));
      done();
    });
  },

  clientStream(done) {
    const call = client.StreamingInputCall(deadline(), (err, reply) => {
      if (err) return done(err);
      print('total', reply.value);
      done();
    });
    for (const size of [27182, 8, 1828, 45904]) call.write({ value: Buffer.alloc(size) });
    call.end();
  },

  status(done) {
    // Whitespace and a character outside the BMP, percent-encoded on the wire.
    const message = '\t\ntest with whitespace\r\nand Unicode BMP ☺ and non-BMP 😈\t\n';
    client.StatusCall({ value: '2 ' + message }, deadline(), (err) => {
      if (!err) return done(new Error('StatusCall succeeded'));
      printStatus(err);
      print('expected', Buffer.from(message, 'utf8').toString('base64'));
      done();
    });
  },

  unimplemented(done) {
    client.UnimplementedCall({}, deadline(), (err) => {
      if (!err) return done(new Error('UnimplementedCall succeeded'));
      printStatus(err);
      done();
    });
  },
};

const run = cases[which];
if (!run) {
  process.stderr.write(`unknown case "${which}"; cases: ${Object.keys(cases).join(', ')}\n`);
  process.exit(2);
}
let finished = false;
run((err) => {
  // A failed unary call reports through its callback and again through its status event.
  if (finished) return;
  finished = true;
  client.close();
  if (err) {
    process.stderr.write(`${which} failed: ${err.stack || err}\n`);
    process.exitCode = 1;
  }
});
