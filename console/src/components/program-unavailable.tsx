// What a program's screen shows when the program does not exist or the person is not a member of it: one page for
// every screen, saying no more than that (whether it exists is not the caller's to learn).
export function ProgramUnavailable() {
  return (
    <main id="main" className="page">
      <h1>This program is not available</h1>
      <p>It does not exist, or you are not a member of it.</p>
    </main>
  )
}
