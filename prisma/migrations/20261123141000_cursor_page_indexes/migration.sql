-- CreateIndex
CREATE INDEX "connector_objects_connection_id_first_seen_at_id_idx" ON "connector_objects"("connection_id", "first_seen_at", "id");

-- CreateIndex
CREATE INDEX "webhook_deliveries_connection_id_received_at_id_idx" ON "webhook_deliveries"("connection_id", "received_at", "id");
