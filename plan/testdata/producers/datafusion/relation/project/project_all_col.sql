SELECT * FROM region;
