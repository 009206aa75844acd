// A shop busy while a sync reads it ($args = {seed, rounds, pause_ms}): each round a few new orders (created
// now), a status change, a refund, a trashed order and a bulk edit of 120 orders on the current second.
mt_srand($args['seed']);
$all = fn ($status) => wc_get_orders(['type' => 'shop_order', 'status' => $status, 'limit' => -1, 'return' => 'ids']);
$pickOne = fn (array $ids) => $ids ? $ids[array_rand($ids)] : null;
for ($round = 0; $round < $args['rounds']; $round++) {
  for ($k = 0; $k < 3; $k++) {
    $o = new WC_Order(); $o->set_currency('EUR'); $o->set_total(sprintf('%d.%02d', mt_rand(5, 300), mt_rand(0, 99)));
    $o->set_status('processing'); $o->save();
  }
  if ($id = $pickOne($all('processing'))) wc_get_order($id)->update_status('completed');
  if ($id = $pickOne($all('completed'))) wc_create_refund(['order_id' => $id, 'amount' => '0.50', 'reason' => 'live']);
  if ($id = $pickOne($all('on-hold'))) wc_get_order($id)->delete(false);
  $ids = $all(array_keys(wc_get_order_statuses()));
  shuffle($ids);
  rw_set_modified(array_slice($ids, 0, 120), time());
  usleep($args['pause_ms'] * 1000);
}
echo json_encode(['rounds' => $args['rounds']]);
