// Command tpchpg writes TPC-H data for PostgreSQL: the generator's
// tables at a scale factor as tab-separated files in PostgreSQL's text
// form, and load.sql, which creates the tables with the specification's
// column types and copies the files in (tpch.Generator.WritePGLoad).
// plan/testdata/producers/tpch-pg/answers.sh runs it to have PostgreSQL
// answer the consumer test suite's SQL over the data the engine reads.
package main
