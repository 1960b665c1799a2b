import { Link } from '../router'

export function NotFound() {
  return (
    <main id="main" className="page">
      <h1>This page does not exist</h1>
      <p><Link href="/">Go to your programs</Link></p>
    </main>
  )
}
