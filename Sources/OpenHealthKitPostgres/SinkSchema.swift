/// The tables a sink writes (docs/postgres.md), created when missing.
/// `person` leads every key, so that one database holds many people's
/// stores and the tables can be distributed by person (Citus).
enum SinkSchema {
    /// The columns of `ohk_samples`, in the order the sink's COPY writes them.
    static let sampleColumns = ["person", "uuid", "type", "start_time", "end_time", "value", "unit", "category_value",
                                "source_bundle", "source_name", "source_version", "device", "metadata",
                                "sync_identifier", "sync_version", "utc_offset", "creation_date", "payload", "position"]

    static let journalColumns = ["person", "sink", "position", "kind", "uuid", "type"]

    /// Created in one transaction under an advisory lock, so that two
    /// sinks starting at once do not race on `CREATE … IF NOT EXISTS`.
    static let create = """
        BEGIN;
        SET LOCAL client_min_messages = warning;
        SELECT pg_advisory_xact_lock(7305433);
        CREATE TABLE IF NOT EXISTS ohk_samples (
            person text NOT NULL,
            uuid uuid NOT NULL,
            type text NOT NULL,
            start_time timestamptz NOT NULL,
            end_time timestamptz NOT NULL,
            value double precision,
            unit text,
            category_value bigint,
            source_bundle text NOT NULL,
            source_name text NOT NULL,
            source_version text,
            device jsonb,
            metadata jsonb,
            sync_identifier text,
            sync_version double precision,
            utc_offset integer,
            creation_date timestamptz,
            payload jsonb,
            position bigint NOT NULL,
            PRIMARY KEY (person, uuid)
        );
        CREATE TABLE IF NOT EXISTS ohk_changes (
            person text NOT NULL,
            sink text NOT NULL,
            position bigint NOT NULL,
            kind text NOT NULL CHECK (kind IN ('save', 'delete')),
            uuid uuid NOT NULL,
            type text NOT NULL,
            delivered_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (person, sink, position)
        );
        CREATE TABLE IF NOT EXISTS ohk_sink_checkpoints (
            person text NOT NULL,
            sink text NOT NULL,
            fence bigint NOT NULL,
            store_id uuid NOT NULL,
            position bigint NOT NULL DEFAULT 0,
            anchor text,
            updated_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (person, sink)
        );
        COMMIT;
        """

    /// The batch's staging table: this session's, emptied at each commit,
    /// never written to the WAL.
    static let staging = """
        SET client_min_messages = warning;
        CREATE TEMP TABLE IF NOT EXISTS ohk_staging (LIKE ohk_samples) ON COMMIT DELETE ROWS;
        """

    static var copySamples: String { "COPY ohk_samples (\(sampleColumns.joined(separator: ", "))) FROM STDIN (FORMAT binary)" }
    static var copyStaging: String { "COPY ohk_staging (\(sampleColumns.joined(separator: ", "))) FROM STDIN (FORMAT binary)" }
    static var copyJournal: String { "COPY ohk_changes (\(journalColumns.joined(separator: ", "))) FROM STDIN (FORMAT binary)" }

    /// Staged samples into the current state. A UUID already there (a
    /// second sink of the same store into the same table) takes the newer
    /// delivery's fields.
    static var upsert: String {
        let updates = sampleColumns.dropFirst(2).map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        return "INSERT INTO ohk_samples SELECT * FROM ohk_staging ON CONFLICT (person, uuid) DO UPDATE SET \(updates)"
    }

    /// PostgreSQL's SQLSTATE for a duplicate key.
    static let uniqueViolation = "23505"

    /// The batch's deletions, read back from its journal rows.
    static let deleteJournaled = """
        DELETE FROM ohk_samples s USING ohk_changes c
        WHERE c.person = $1 AND c.sink = $2 AND c.position > $3 AND c.kind = 'delete'
          AND s.person = $1 AND s.uuid = c.uuid
        """
}
