// onnxruntime side of tools/bench/models.sh: session creation and run times of one backend
// test folder (model.onnx + test_data_set_0/input_*.pb), in one node process.
//   node ort.js ORT_DIR MODEL_DIR THREADS RUNS
// ORT_DIR holds node_modules/onnxruntime-node. Prints key=value lines, times in seconds.
'use strict';
const fs = require('fs');
const path = require('path');
const [ortDir, dir, threadsArg, runsArg] = process.argv.slice(2);
const ort = require(path.join(ortDir, 'node_modules', 'onnxruntime-node'));

// A varint at buf[pos]: [value, next position]. Dims and types fit in a double.
function varint(buf, pos) {
	let v = 0, mul = 1, b;
	do {
		b = buf[pos++];
		v += (b & 0x7f) * mul;
		mul *= 128;
	} while (b & 0x80);
	return [v, pos];
}

// The fields of a TensorProto that backend test inputs use: dims (1), data_type (2),
// float_data (4), int64_data (7), name (8), raw_data (9).
function readTensor(file) {
	const buf = fs.readFileSync(file);
	const t = { dims: [], type: 1, raw: null, floats: [], ints: [] };
	for (let pos = 0; pos < buf.length;) {
		let key, v;
		[key, pos] = varint(buf, pos);
		const field = Math.floor(key / 8), wire = key & 7;
		if (wire === 0) {
			[v, pos] = varint(buf, pos);
			if (field === 1) t.dims.push(v);
			else if (field === 2) t.type = v;
			else if (field === 7) t.ints.push(BigInt(v));
		} else if (wire === 2) {
			let len;
			[len, pos] = varint(buf, pos);
			const body = buf.subarray(pos, pos + len);
			pos += len;
			if (field === 9) t.raw = body;
			else if (field === 1) for (let p = 0; p < body.length;) { [v, p] = varint(body, p); t.dims.push(v); }
			else if (field === 4) for (let p = 0; p < body.length; p += 4) t.floats.push(body.readFloatLE(p));
			else if (field === 7) for (let p = 0; p < body.length;) { [v, p] = varint(body, p); t.ints.push(BigInt(v)); }
		} else if (wire === 5) {
			if (field === 4) t.floats.push(buf.readFloatLE(pos));
			pos += 4;
		} else if (wire === 1) {
			pos += 8;
		} else {
			throw new Error(file + ': unexpected wire type ' + wire);
		}
	}
	const kinds = { 1: ['float32', Float32Array, 4], 7: ['int64', BigInt64Array, 8], 6: ['int32', Int32Array, 4] };
	const k = kinds[t.type];
	if (!k) throw new Error(file + ': element type ' + t.type + ' is not handled here');
	let data;
	if (t.raw) {
		const copy = Buffer.from(t.raw); // aligned copy
		data = new k[1](copy.buffer, copy.byteOffset, t.raw.length / k[2]);
	} else {
		data = k[1].from(t.type === 1 ? t.floats : t.ints);
	}
	return new ort.Tensor(k[0], data, t.dims);
}

async function main() {
	const threads = Number(threadsArg), runs = Number(runsArg);
	const opts = { executionMode: 'sequential', graphOptimizationLevel: 'all', logSeverityLevel: 3 };
	if (threads > 0) {
		opts.intraOpNumThreads = threads;
		opts.interOpNumThreads = 1;
	}
	const t0 = process.hrtime.bigint();
	const s = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), opts);
	const t1 = process.hrtime.bigint();
	const feeds = {};
	s.inputNames.forEach((name, i) => {
		const f = path.join(dir, 'test_data_set_0', 'input_' + i + '.pb');
		if (fs.existsSync(f)) feeds[name] = readTensor(f);
	});
	const times = [], cpu = [];
	for (let i = 0; i < runs + 1; i++) {
		const r0 = process.hrtime.bigint(), c0 = process.cpuUsage();
		await s.run(feeds);
		times.push(Number(process.hrtime.bigint() - r0) / 1e9);
		const c = process.cpuUsage(c0);
		cpu.push((c.user + c.system) / 1e6);
	}
	const first = times.shift();
	cpu.shift();
	times.sort((a, b) => a - b);
	cpu.sort((a, b) => a - b);
	console.log('session=' + (Number(t1 - t0) / 1e9).toFixed(9));
	console.log('first_run=' + first.toFixed(9));
	console.log('run_best=' + times[0].toFixed(9));
	console.log('run_median=' + times[Math.floor(times.length / 2)].toFixed(9));
	// the process's CPU time per run (all threads; node's own share is small)
	console.log('run_cpu_median=' + cpu[Math.floor(cpu.length / 2)].toFixed(9));
}
main().catch((e) => { console.error('ort.js: ' + e.message); process.exit(1); });
