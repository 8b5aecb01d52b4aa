// billing_products: one document per product, read by queries/billing/products.ts.
import { type ProductEvent, type ProductFields, productCodec } from '../../domain/billing/product.ts';
import { documentProjection, documentTable } from '../documents/projection.ts';

/** The stored product: exactly the billing.ProductDetailItem body. */
export interface ProductDoc extends ProductFields {
  id: string;
  /** Keys of the entitlements the product grants, in the order they were added. */
  entitlements: string[];
  created_at: string;
  updated_at: string;
}

/** Builds billing_products from product events. */
export const billingProductsProjection = documentProjection({
  name: 'billing.products',
  version: 1,
  tables: [
    documentTable<ProductDoc, ProductEvent>({
      table: 'billing_products',
      events: productCodec,
      columns: (d) => ({ active: d.active, created_at: d.created_at }),
      handlers: {
        ProductCreated: (_doc, d) => {
          const { product_id, created_at, ...fields } = d;
          return { id: product_id, ...fields, entitlements: [], created_at, updated_at: created_at };
        },
        ProductUpdated: (doc, d) => doc && { ...doc, ...d.changes, updated_at: d.updated_at },
        ProductEntitlementAdded: (doc, d) => doc && { ...doc, entitlements: [...doc.entitlements, d.entitlement_key], updated_at: d.added_at },
        ProductEntitlementRemoved: (doc, d) => doc && { ...doc, entitlements: doc.entitlements.filter((k) => k !== d.entitlement_key), updated_at: d.removed_at },
      },
    }),
  ],
});
