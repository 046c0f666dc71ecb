SELECT o_totalprice FROM orders EXCEPT SELECT c_acctbal FROM customer;
