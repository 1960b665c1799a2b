// Browser entry: reads the runtime configuration, then renders the console.
import './styles.css'
import { createRoot } from 'react-dom/client'
import { loadConfig } from './api/config'
import { App } from './app'

const root = createRoot(document.getElementById('console-root')!)
void loadConfig().then((config) => root.render(<App config={config} />))
