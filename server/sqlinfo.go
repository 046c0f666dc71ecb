package server

import (
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	pb "github.com/apache/arrow-go/v18/arrow/flight/gen/flight"
)

// Version is the server version GetSqlInfo reports.
const Version = "0.1.0"

// keywords are the words stablerow's parser reserves that SQL:2003 does
// not (JDBC's getSQLKeywords, GetSqlInfo's SQL_KEYWORDS): the parser is
// PostgreSQL's grammar (pg_query), so they are PostgreSQL's reserved and
// type-or-function-name keywords (its kwlist.h, RESERVED_KEYWORD and
// TYPE_FUNC_NAME_KEYWORD) less the reserved words of SQL:2003. A client
// quotes them to use them as names (TestSqlInfoClaims checks each).
var keywords = []string{
	"analyse", "analyze", "asc", "collation", "concurrently", "current_catalog", "current_schema",
	"deferrable", "desc", "freeze", "ilike", "initially", "isnull", "limit", "notnull", "offset",
	"placing", "returning", "variadic", "verbose",
}

// bits is a GetSqlInfo bitmask of enum values (the spec's int32 masks).
func bits[E ~int32](es ...E) int32 {
	var m int32
	for _, e := range es {
		m |= 1 << e
	}
	return m
}

// sqlInfo declares what the server is and what its SQL does, for
// GetSqlInfo (JDBC's DatabaseMetaData, GUI tools on connect). Every
// capability claimed is exercised by a query in TestSqlInfoClaims; what
// stablerow lacks is declared absent rather than left out, so a client
// does not assume it:
//
//   - Transactions: BeginTransaction / EndTransaction (transactions.go),
//     each an engine.Session's block: REPEATABLE READ (snapshot
//     isolation, first committer wins), the one level there is, and the
//     one a transaction gets. A statement without a transaction id
//     commits on its own. No savepoints. (BEGIN as SQL text stays
//     refused: each call without a transaction id is a session of its
//     own.)
//   - Catalogs and schemas: there are none (one unnamed schema), so no
//     statement names them and no DDL makes them.
//   - ANSI SQL-92: no level is claimed: even Entry SQL needs views,
//     UNIQUE/CHECK/foreign key constraints and GRANT, which stablerow does
//     not have. The ODBC grammar is the minimum one (CREATE and DROP
//     TABLE, SELECT, INSERT, searched UPDATE and DELETE); the core one
//     needs ALTER TABLE, DROP INDEX, views and grants.
//   - Nulls sort high, as in PostgreSQL: last ascending, first descending.
var sqlInfo = map[flightsql.SqlInfo]any{
	flightsql.SqlInfoFlightSqlServerName:         "stablerow",
	flightsql.SqlInfoFlightSqlServerVersion:      Version,
	flightsql.SqlInfoFlightSqlServerArrowVersion: "18.8.0",
	flightsql.SqlInfoFlightSqlServerReadOnly:     false,
	flightsql.SqlInfoFlightSqlServerSql:          true,
	flightsql.SqlInfoFlightSqlServerSubstrait:    true,
	flightsql.SqlInfoFlightSqlServerTransaction:  int32(flightsql.SqlTransactionTransaction),
	flightsql.SqlInfoFlightSqlServerCancel:       true,

	flightsql.SqlInfoDDLCatalog:                    false,
	flightsql.SqlInfoDDLSchema:                     false,
	flightsql.SqlInfoDDLTable:                      true,
	flightsql.SqlInfoIdentifierQuoteChar:           `"`,
	flightsql.SqlInfoAllTablesAreASelectable:       true, // no grants: every table reads
	flightsql.SqlInfoNullOrdering:                  int32(flightsql.SqlNullOrderingSortHigh),
	flightsql.SqlInfoKeywords:                      keywords,
	flightsql.SqlInfoSupportsColumnAliasing:        true,
	flightsql.SqlInfoNullPlusNullIsNull:            true,
	flightsql.SqlInfoSupportsTableCorrelationNames: true,
	flightsql.SqlInfoSupportsExpressionsInOrderBy:  true,
	flightsql.SqlInfoSupportsOrderByUnrelated:      true,
	flightsql.SqlInfoSupportedGroupBy: bits(pb.SqlSupportedGroupBy_SQL_GROUP_BY_UNRELATED,
		pb.SqlSupportedGroupBy_SQL_GROUP_BY_BEYOND_SELECT),
	flightsql.SqlInfoSupportsLikeEscapeClause:             true,
	flightsql.SqlInfoSupportsNonNullableColumns:           true,
	flightsql.SqlInfoSupportedGrammar:                     bits(pb.SupportedSqlGrammar_SQL_MINIMUM_GRAMMAR),
	flightsql.SqlInfoANSI92SupportedLevel:                 int32(0),
	flightsql.SqlInfoSupportsIntegrityEnhancementFacility: false,
	flightsql.SqlInfoOuterJoinsSupportLevel:               int32(pb.SqlOuterJoinsSupportLevel_SQL_FULL_OUTER_JOINS),
	flightsql.SqlInfoSchemaTerm:                           "schema",
	flightsql.SqlInfoCatalogTerm:                          "catalog",
	flightsql.SqlInfoSchemasSupportedActions:              int32(0),
	flightsql.SqlInfoCatalogsSupportedActions:             int32(0),
	flightsql.SqlInfoSupportedPositionedCommands:          int32(0),
	flightsql.SqlInfoSelectForUpdateSupported:             false,
	flightsql.SqlInfoStoredProceduresSupported:            false,
	// Quantified comparisons (> ANY, >= ALL) plan as mark or semi/anti
	// joins with PostgreSQL's NULL rules, as IN and EXISTS do.
	flightsql.SqlInfoSupportedSubqueries: bits(pb.SqlSupportedSubqueries_SQL_SUBQUERIES_IN_COMPARISONS,
		pb.SqlSupportedSubqueries_SQL_SUBQUERIES_IN_EXISTS, pb.SqlSupportedSubqueries_SQL_SUBQUERIES_IN_INS,
		pb.SqlSupportedSubqueries_SQL_SUBQUERIES_IN_QUANTIFIEDS),
	flightsql.SqlInfoCorrelatedSubqueriesSupported:        true,
	flightsql.SqlInfoSupportedUnions:                      bits(pb.SqlSupportedUnions_SQL_UNION, pb.SqlSupportedUnions_SQL_UNION_ALL),
	flightsql.SqlInfoTransactionsSupported:                true,
	flightsql.SqlInfoDefaultTransactionIsolation:          int32(pb.SqlTransactionIsolationLevel_SQL_TRANSACTION_REPEATABLE_READ),
	flightsql.SqlInfoSupportedTransactionsIsolationlevels: bits(pb.SqlTransactionIsolationLevel_SQL_TRANSACTION_REPEATABLE_READ),
	flightsql.SqlInfoSavePointsSupported:                  false,
	flightsql.SqlInfoSupportedResultSetTypes:              bits(pb.SqlSupportedResultSetType_SQL_RESULT_SET_TYPE_FORWARD_ONLY),
}

// registerSqlInfo registers sqlInfo for GetSqlInfo.
func (s *Server) registerSqlInfo() error {
	for id, v := range sqlInfo {
		if err := s.RegisterSqlInfo(id, v); err != nil {
			return err
		}
	}
	return nil
}
