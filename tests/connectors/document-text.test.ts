// Stored document text an agent reads goes through the shared outside-text sanitiser: the injection fixture through
// documentTextForAgent, the record around each case kept. (Over MCP, as production reads entries: documents.list_assets
// and documents.read_table_rows in tests/twins/documents-tools.test.ts.) Apart from tests/memory/sanitiser.test.ts so
// that the mutation run's pure tests do not load the connectors' domain.
import { describeInjectionFixture } from '../fixtures/injection'
import { documentTextForAgent } from '../../domain/documents'

describeInjectionFixture('stored document text read by an agent (documentTextForAgent)', (text) => documentTextForAgent(`Batch record.\n${text}`), { kept: 'Batch record.' })
