// Owns what an id of this service looks like (every primary key is a UUID): the pattern for routes, a test for reads
// that answer null on a foreign id, and the zod schema inputs use (invalid_input: 'not an id this service gave out').
import { z } from 'zod'

export const UUID_PATTERN = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}'
const UUID_RE = new RegExp(`^${UUID_PATTERN}$`)

export const isId = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value)

export const IdInput = z.string().regex(UUID_RE, 'not an id this service gave out')
