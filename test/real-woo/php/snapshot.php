// The shop's own account of its orders, as the oracle for the warehouse: every order of every status, trash
// included, with its total, currency and store-local creation day, and its refunds with their amount and
// store-local day. Forced deletions are simply absent.
$statuses = array_merge(array_keys(wc_get_order_statuses()), ['trash']);
$orders = wc_get_orders(['type' => 'shop_order', 'status' => $statuses, 'limit' => -1, 'orderby' => 'id', 'order' => 'ASC']);
$out = [];
foreach ($orders as $o) {
  $out[] = [
    'id' => $o->get_id(), 'status' => $o->get_status(), 'total' => wc_format_decimal($o->get_total(), 2),
    'currency' => $o->get_currency(), 'day' => $o->get_date_created()->date('Y-m-d'),
    'refunds' => array_map(fn ($r) => ['id' => $r->get_id(), 'amount' => wc_format_decimal($r->get_amount(), 2),
      'day' => $r->get_date_created()->date('Y-m-d')], $o->get_refunds()),
  ];
}
echo json_encode($out);
