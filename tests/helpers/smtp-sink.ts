// A minimal SMTP server on 127.0.0.1 that records what it receives (enough of RFC 5321 for nodemailer).
import net from 'node:net'

export interface ReceivedMail { from: string; to: string[]; data: string }

export async function startSmtpSink() {
  const received: ReceivedMail[] = []
  const server = net.createServer((socket) => {
    let mail: ReceivedMail = { from: '', to: [], data: '' }
    let inData = false
    let buffer = ''
    socket.write('220 sink ESMTP\r\n')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8')
      let i
      while ((i = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, i)
        buffer = buffer.slice(i + 2)
        if (inData) {
          if (line === '.') { inData = false; received.push(mail); mail = { from: '', to: [], data: '' }; socket.write('250 OK queued\r\n') }
          else mail.data += line.replace(/^\.\./, '.') + '\n'
          continue
        }
        const cmd = line.slice(0, 4).toUpperCase()
        if (cmd === 'EHLO' || cmd === 'HELO') socket.write('250 sink\r\n')
        else if (cmd === 'MAIL') { mail.from = line; socket.write('250 OK\r\n') }
        else if (cmd === 'RCPT') { mail.to.push(line); socket.write('250 OK\r\n') }
        else if (cmd === 'DATA') { inData = true; socket.write('354 go ahead\r\n') }
        else if (cmd === 'QUIT') { socket.end('221 bye\r\n') }
        else socket.write('250 OK\r\n')
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as net.AddressInfo
  return { url: `smtp://127.0.0.1:${port}`, received, close: () => new Promise<void>((r) => server.close(() => r())) }
}
