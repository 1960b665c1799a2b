// The code-generation set-up to copy into your project to type your own operations (GraphQL Code Generator's client
// preset over this package's schema). Install: npm install -D @graphql-codegen/cli @graphql-codegen/client-preset,
// copy this file to your project as codegen.ts, then run npx graphql-codegen. Your operations (gql`…` / graphql(`…`)
// in src/, or .graphql files) get types in src/gql/; the scalars and enum style match the documents this package ships.
import type { CodegenConfig } from '@graphql-codegen/cli'

const config: CodegenConfig = {
  schema: 'node_modules/@evidence-workspace/client/schema.graphql',
  documents: ['src/**/*.{ts,tsx,graphql}', '!src/gql/**/*'],
  ignoreNoDocuments: true,
  generates: {
    'src/gql/': {
      preset: 'client',
      config: {
        // a mutation's result union is switched on by __typename; the API's scalars as they travel in JSON
        nonOptionalTypename: true,
        enumsAsTypes: true,
        scalars: { DateTime: 'string', JSON: 'unknown' },
        useTypeImports: true,
      },
    },
  },
}
export default config
