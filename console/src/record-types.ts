// Record types as people read them: 'evidence.findings' becomes 'Evidence: findings' (the contract's product and
// resource, never a raw key on screen).
export function recordTypeName(recordType: string | null | undefined): string {
  if (!recordType) return 'Record'
  const [product, resource = ''] = recordType.split('.')
  const words = resource.replace(/_/g, ' ')
  return `${product.charAt(0).toUpperCase()}${product.slice(1)}: ${words}`
}
