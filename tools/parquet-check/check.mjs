#!/usr/bin/env node
// Independent check of a fedbandit dataset directory.
//
// Usage: node check.mjs DATASET_DIR
//
// Reads DATASET_DIR/documents.parquet with hyparquet (a pure-JavaScript
// Parquet reader, sharing no code with the Go writer) and compares it with
// DATASET_DIR/manifest.json: sha256 of the file, row count, feature count,
// distinct qids and query blocks, doc positions, label histogram and every
// feature's min / max / mean / zero fraction. Exits 1 on any mismatch.
import { createHash } from 'node:crypto'
import { createReadStream, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead } from 'hyparquet'

const dir = process.argv[2]
if (!dir || process.argv.length > 3) {
  console.error('usage: node check.mjs DATASET_DIR')
  process.exit(2)
}
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
const path = join(dir, 'documents.parquet')
const problems = []
const expect = (what, got, want) => {
  if (got !== want) problems.push(`${what}: parquet ${got}, manifest ${want}`)
}

// sha256 of the file = documents_sha256.
const sha = await new Promise((resolve, reject) => {
  const h = createHash('sha256')
  createReadStream(path).on('data', d => h.update(d)).on('error', reject).on('end', () => resolve(h.digest('hex')))
})
expect('sha256', sha, manifest.documents_sha256)

const file = await asyncBufferFromFile(path)
const metadata = await parquetMetadataAsync(file)
const names = metadata.schema.slice(1).map(s => s.name)
const features = names.filter(n => /^f[0-9]+$/.test(n))
expect('features', features.length, manifest.features)
for (const [i, f] of features.entries()) expect(`feature column ${i + 1}`, f, `f${i + 1}`)
for (const c of ['qid', 'doc', 'label', 'part']) {
  if (!names.includes(c)) problems.push(`missing column ${c}`)
}
for (const c of manifest.comment_columns) {
  if (!names.includes(c.name)) problems.push(`missing comment column ${c.name}`)
}

const nf = features.length
const min = new Array(nf).fill(Infinity)
const max = new Array(nf).fill(-Infinity)
const sum = new Array(nf).fill(0)
const zeros = new Array(nf).fill(0)
const labels = []
const qids = new Set()
let rows = 0
let blocks = 0
let lastQid = null
let expectDoc = 0
let rowStart = 0
const columns = ['qid', 'doc', 'label', ...features]
for (const rg of metadata.row_groups) {
  const rowEnd = rowStart + Number(rg.num_rows)
  await parquetRead({
    file, metadata, columns, rowStart, rowEnd,
    onComplete: data => {
      for (const row of data) {
        const qid = BigInt(row[0])
        const doc = Number(row[1])
        if (qid !== lastQid) {
          blocks++
          if (qids.has(qid)) problems.push(`qid ${qid} appears in two blocks`)
          qids.add(qid)
          lastQid = qid
          expectDoc = 0
        }
        if (doc !== expectDoc && problems.length < 20) problems.push(`row ${rows}: doc ${doc}, want ${expectDoc}`)
        expectDoc++
        const l = Number(row[2])
        labels[l] = (labels[l] ?? 0) + 1
        for (let j = 0; j < nf; j++) {
          const v = row[3 + j]
          if (v < min[j]) min[j] = v
          if (v > max[j]) max[j] = v
          sum[j] += v
          if (v === 0) zeros[j]++
        }
        rows++
      }
    },
  })
  rowStart = rowEnd
}
expect('rows', rows, manifest.rows)
expect('rows (footer)', Number(metadata.num_rows), manifest.rows)
expect('distinct qids', qids.size, manifest.queries)
expect('query blocks', blocks, manifest.queries)
const hist = manifest.label_histogram.map((_, l) => labels[l] ?? 0)
if (labels.length > manifest.label_histogram.length) problems.push(`labels above ${manifest.label_max}`)
expect('label histogram', hist.join('/'), manifest.label_histogram.join('/'))
const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))
for (let j = 0; j < nf; j++) {
  const s = manifest.feature_stats[j]
  if (!s) { problems.push(`no feature_stats for f${j + 1}`); continue }
  expect(`f${j + 1} min`, min[j], s.min)
  expect(`f${j + 1} max`, max[j], s.max)
  if (!close(sum[j] / rows, s.mean)) problems.push(`f${j + 1} mean: parquet ${sum[j] / rows}, manifest ${s.mean}`)
  if (!close(zeros[j] / rows, s.zero_fraction)) problems.push(`f${j + 1} zero fraction: parquet ${zeros[j] / rows}, manifest ${s.zero_fraction}`)
}

console.log(`${path}: ${rows} rows, ${qids.size} queries, ${nf} features, labels ${hist.join('/')}, ${metadata.row_groups.length} row groups (read with hyparquet)`)
if (problems.length > 0) {
  for (const p of problems) console.error('MISMATCH ' + p)
  process.exit(1)
}
console.log('OK: documents.parquet matches manifest.json')
