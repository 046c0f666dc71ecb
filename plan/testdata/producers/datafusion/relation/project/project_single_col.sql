SELECT * FROM lineitem;
