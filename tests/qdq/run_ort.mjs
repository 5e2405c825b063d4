// Runs an ONNX model on ONNX Runtime (the npm package onnxruntime-node, CPU, graph optimizations
// at their default: QDQ groups become QLinear* integer kernels) and writes its first output as
// a .npy file: the reference the QDQ comparison (tests/qdq/compare.py) checks nnaccel against.
//
// usage: node run_ort.mjs MODULES_DIR MODEL.onnx INPUT.npy OUTPUT.npy [unfused]
//        (OUTPUT with '%d' in it: every output, e.g. out-%d.npy)
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const [modulesDir, modelPath, inputPath, outputPath, mode] = process.argv.slice(2);
const require = createRequire(path.join(path.resolve(modulesDir), 'index.js'));
const ort = require('onnxruntime-node');

// .npy version 1.0, little-endian float32, C order: the only form these tests write.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  const headerLen = buf.readUInt16LE(8);
  const header = buf.subarray(10, 10 + headerLen).toString('latin1');
  if (!header.includes("'descr': '<f4'") || header.includes("'fortran_order': True"))
    throw new Error(`${file}: not a C-order float32 .npy`);
  const dims = header.match(/'shape': \(([^)]*)\)/)[1].split(',').map((s) => s.trim())
    .filter((s) => s.length > 0).map(Number);
  const start = 10 + headerLen;
  const data = new Float32Array(buf.buffer.slice(buf.byteOffset + start, buf.byteOffset + buf.length));
  return { dims, data };
}

function writeNpy(file, dims, data) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  let header = `{'descr': '<f4', 'fortran_order': False, 'shape': ${shape}, }`;
  const pad = 64 - ((10 + header.length + 1) % 64);
  header += ' '.repeat(pad % 64) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head.writeUInt8(1, 6);
  head.writeUInt8(0, 7);
  head.writeUInt16LE(header.length, 8);
  fs.writeFileSync(file, Buffer.concat([head, Buffer.from(header, 'latin1'),
                                        Buffer.from(data.buffer, data.byteOffset, data.byteLength)]));
}

// mode 'unfused': graph optimizations off, so every QDQ group runs as ONNX defines it
// (DequantizeLinear, the fp32 op, QuantizeLinear) instead of on ORT's fused integer kernels.
const options = { intraOpNumThreads: 1 };
if (mode === 'unfused') options.graphOptimizationLevel = 'disabled';
const session = await ort.InferenceSession.create(modelPath, options);
const x = readNpy(inputPath);
const feeds = { [session.inputNames[0]]: new ort.Tensor('float32', x.data, x.dims) };
const results = await session.run(feeds);
// OUTPUT.npy: the first output; an OUTPUT path with '%d': every output, %d its index.
const names = outputPath.includes('%d') ? session.outputNames : [session.outputNames[0]];
names.forEach((name, i) => {
  const out = results[name];
  writeNpy(outputPath.replace('%d', String(i)), out.dims, out.data);
});
