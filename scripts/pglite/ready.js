// ready.js PORT: exits 0 once a PostgreSQL server on 127.0.0.1:PORT answers
// "SELECT 1" as user postgres, 1 with the reason otherwise. It speaks the
// wire protocol itself so that start.sh needs nothing but node.
'use strict'
const net = require('node:net')

const port = Number(process.argv[2])
const fail = (why) => { console.error(why); process.exit(1) }
if (!Number.isInteger(port) || port <= 0) fail(`ready.js: bad port ${process.argv[2]}`)

const cstr = (s) => Buffer.from(s + '\0')
function message(type, body) {
  const len = Buffer.alloc(4)
  len.writeInt32BE(body.length + 4)
  return Buffer.concat([Buffer.from(type), len, body])
}
function startup() {
  const body = Buffer.concat([Buffer.from([0, 3, 0, 0]), cstr('user'), cstr('postgres'),
    cstr('database'), cstr('postgres'), Buffer.from([0])])
  const len = Buffer.alloc(4)
  len.writeInt32BE(body.length + 4)
  return Buffer.concat([len, body])
}

const sock = net.connect({ host: '127.0.0.1', port })
sock.setTimeout(10000, () => fail('ready.js: no answer in 10s'))
sock.on('error', (e) => fail(`ready.js: ${e.message}`))
sock.on('close', () => fail('ready.js: the server closed the connection'))
sock.on('connect', () => sock.write(startup()))

let buf = Buffer.alloc(0)
let queried = false
sock.on('data', (data) => {
  buf = Buffer.concat([buf, data])
  while (buf.length >= 5) {
    const type = String.fromCharCode(buf[0])
    const len = buf.readInt32BE(1)
    if (buf.length < 1 + len) return
    const body = buf.subarray(5, 1 + len)
    buf = buf.subarray(1 + len)
    if (type === 'R') {
      const code = body.readInt32BE(0)
      if (code === 3) sock.write(message('p', cstr('postgres')))
      else if (code !== 0) fail(`ready.js: unsupported authentication request ${code}`)
    } else if (type === 'E') {
      fail(`ready.js: server error: ${body.toString().replace(/\0/g, ' ').trim()}`)
    } else if (type === 'Z') {
      if (!queried) {
        queried = true
        sock.write(message('Q', cstr('SELECT 1')))
      } else {
        sock.removeAllListeners('close')
        sock.end(message('X', Buffer.alloc(0)))
        process.exit(0)
      }
    }
  }
})
